/**
 * A pi 0.87.1 models.json may name reasoning dialects xcsh does not write yet
 * (together, baseten, chat-template, string-thinking, ant-ling). Such a file still
 * starts xcsh, says once what it does not apply, and the model is asked plainly.
 */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { makeFakeModelHome, runXcsh, type FakeModelHome } from "../support/cli.ts";

let fake: FakeModelHome;
beforeEach(async () => {
  fake = await makeFakeModelHome();
});
afterEach(() => fake.cleanup());

test("a thinkingFormat xcsh does not speak starts xcsh with one warning, and no reasoning field is sent", async () => {
  fake.home.writeModelsJson({
    providers: {
      fake: {
        baseUrl: fake.server.baseUrl("openai-completions"),
        api: "openai-completions",
        apiKey: "k",
        compat: { thinkingFormat: "together" },
        models: [{ id: "m", reasoning: true, compat: { thinkingFormat: "chat-template" } }],
      },
    },
  });
  fake.server.enqueue({ content: [{ type: "text", text: "plain answer" }] });
  const result = await runXcsh(["--no-session", "--model", "fake/m", "--thinking", "high", "-p", "hi"], { env: fake.home.env });
  expect(result.exitCode).toBe(0);
  expect(result.stdout).toContain("plain answer");
  expect(result.stderr).toContain('thinkingFormat "together" is not supported by xcsh yet');
  expect(result.stderr).toContain('thinkingFormat "chat-template" is not supported by xcsh yet');
  expect(result.stderr.split('thinkingFormat "together"').length - 1).toBe(1);
  const body = fake.server.requests.at(-1)!.body;
  for (const field of ["reasoning_effort", "reasoning", "thinking", "enable_thinking", "chat_template_kwargs"]) expect(body[field]).toBeUndefined();
});
