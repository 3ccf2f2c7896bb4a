/**
 * pi's reasoning dialects beyond OpenAI's (together, baseten, chat-template,
 * string-thinking, ant-ling), named in a models.json: xcsh writes each the way its
 * servers read it, with no warning. (They were accepted and not written before.)
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { makeFakeModelHome, runXcsh, type FakeModelHome } from "../support/cli.ts";

let fake: FakeModelHome;
beforeEach(async () => {
  fake = await makeFakeModelHome();
});
afterEach(() => fake.cleanup());

test("each of pi's other thinkingFormats is written into the request, without a warning", async () => {
  fake.home.writeModelsJson({
    providers: {
      fake: {
        baseUrl: fake.server.baseUrl("openai-completions"),
        api: "openai-completions",
        apiKey: "k",
        compat: { thinkingFormat: "together" },
        models: [
          { id: "together-m", reasoning: true },
          { id: "template-m", reasoning: true, compat: { thinkingFormat: "chat-template", chatTemplateKwargs: { thinking: { $var: "thinking.enabled" } } } },
          { id: "string-m", reasoning: true, compat: { thinkingFormat: "string-thinking" } },
        ],
      },
    },
  });
  const sent: Record<string, unknown>[] = [];
  for (const model of ["together-m", "template-m", "string-m"]) {
    fake.server.enqueue({ content: [{ type: "text", text: "plain answer" }] });
    const result = await runXcsh(["--no-session", "--model", `fake/${model}`, "--thinking", "high", "-p", "hi"], { env: fake.home.env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("plain answer");
    expect(result.stderr).not.toContain("thinkingFormat");
    sent.push(fake.server.requests.at(-1)!.body);
  }
  expect(sent[0]).toMatchObject({ reasoning: { enabled: true }, reasoning_effort: "high" });
  expect(sent[1].chat_template_kwargs).toEqual({ thinking: true });
  expect(sent[2].thinking).toBe("high");
});
