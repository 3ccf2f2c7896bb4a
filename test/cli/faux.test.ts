/**
 * The built binary with the offline faux provider, as on a fresh machine: no API
 * key and no models.json anywhere.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { FAUX_GREETING } from "../../src/ai/providers/faux.ts";
import { startFakeLlm } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";

let home: TestHome;

beforeAll(() => {
  ensureBinary();
});
beforeEach(() => {
  home = makeTestHome();
});
afterEach(() => {
  home.cleanup();
});

function writeScript(name: string, script: unknown): string {
  const file = join(home.home, name);
  writeFileSync(file, JSON.stringify(script));
  return file;
}

describe("xcsh --provider faux", () => {
  test("answers with no API key and no models.json", async () => {
    const result = await runXcsh(["--provider", "faux", "-p", "hello"], { env: home.env });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe(`${FAUX_GREETING}\n`);
    expect(result.exitCode).toBe(0);
  });

  test("answers in --mode rpc too, with no API key (README's first command, as a host runs it)", async () => {
    const commands = [
      { id: "s", type: "get_state" },
      { id: "p", type: "prompt", message: "hello" },
    ];
    const result = await runXcsh(["--mode", "rpc", "--provider", "faux", "--no-session"], {
      env: home.env,
      stdin: commands.map((command) => JSON.stringify(command)).join("\n") + "\n",
    });
    expect(result.exitCode).toBe(0);
    const frames = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(frames.find((frame) => frame.id === "s").data.model.provider).toBe("faux");
    expect(frames.find((frame) => frame.id === "p")).toMatchObject({ type: "response", command: "prompt", success: true });
    const end = frames.find((frame) => frame.type === "agent_end");
    expect(end.messages.at(-1).content.at(-1).text).toBe(FAUX_GREETING);
  });

  test("replays a script: a bash tool call runs for real, then the final text is printed", async () => {
    writeScript("script.json", {
      responses: [
        {
          content: [
            { type: "text", text: "I will write the file." },
            { type: "toolCall", name: "bash", arguments: { command: "echo made-by-faux > proof.txt" } },
          ],
        },
        { content: [{ type: "text", text: "The file is written." }] },
      ],
    });
    // A relative path: the flag is resolved against the directory xcsh was started in.
    const result = await runXcsh(["--provider", "faux", "--faux-script", "script.json", "-p", "write the file"], { env: home.env });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("The file is written.\n");
    expect(result.exitCode).toBe(0);
    expect(readFileSync(join(home.home, "proof.txt"), "utf8")).toBe("made-by-faux\n");
  });

  test("the tool's output goes back to the model as a tool result (json mode)", async () => {
    writeScript("script.json", [
      { content: [{ type: "toolCall", id: "call-1", name: "bash", arguments: { command: "echo from-the-tool" } }] },
      { content: [{ type: "text", text: "done" }] },
    ]);
    const result = await runXcsh(["--provider", "faux", "--faux-script", "script.json", "--mode", "json", "-p", "run it"], { env: home.env });
    expect(result.exitCode).toBe(0);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    const toolResult = events.find((event) => event.type === "message_end" && event.message.role === "toolResult")?.message;
    expect(toolResult).toMatchObject({ toolCallId: "call-1", toolName: "bash", isError: false });
    expect(JSON.stringify(toolResult.content)).toContain("from-the-tool");
  });

  test("a missing script file is a clear error and a non-zero exit", async () => {
    const missing = join(home.home, "no-such-script.json");
    const result = await runXcsh(["--provider", "faux", "--faux-script", missing, "-p", "hello"], { env: home.env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(`Faux script ${missing}: file not found`);
    expect(result.stdout).toBe("");
  });

  test("lists faux-1 as a usable model", async () => {
    const result = await runXcsh(["--list-models", "faux"], { env: home.env });
    expect(result.stdout).toMatch(/faux\s+faux-1\s+200K\s+16\.4K\s+yes\s+yes\s+yes/);
    expect(result.exitCode).toBe(0);
  });

  test("the fauxScript setting is used when no flag is given", async () => {
    writeScript("from-settings.json", [{ content: [{ type: "text", text: "scripted by settings" }] }]);
    home.writeSettings({ defaultProvider: "faux", fauxScript: "from-settings.json" });
    const result = await runXcsh(["-p", "hello"], { env: home.env });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("scripted by settings\n");
    expect(result.exitCode).toBe(0);
  });

  test("is never picked on its own: with no key, a run without --provider still says no key is configured", async () => {
    const result = await runXcsh(["-p", "hello"], { env: home.env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("No model available: no API key is configured");
  });

  test("a real provider with a key wins over faux as the default", async () => {
    const server = startFakeLlm();
    try {
      server.enqueue({ content: [{ type: "text", text: "from the real provider" }] });
      home.writeModelsJson({
        providers: { local: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "local-model" }] } },
      });
      const result = await runXcsh(["-p", "hello"], { env: home.env });
      expect(result.stdout).toBe("from the real provider\n");
      expect(result.exitCode).toBe(0);
    } finally {
      await server.close();
    }
  });
});
