/**
 * What a command learns from its environment (pi's environment-variables.md, with
 * xcsh twins): commands the model runs get the session id and file, the selected
 * provider and model and the effective reasoning level as PI_* and XCSH_* variables,
 * read when each command starts; every child of xcsh has the process markers
 * (AI_AGENT=xcsh, PI_CODING_AGENT=true, XCSH_CODING_AGENT=true); the user's own
 * commands (RPC `bash`) get the markers only, as in pi. Seen where a user sees it:
 * in the tool result the model receives, and in the bash command's output.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { createExtensionFixture, type ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";

const SHOW_ENV = "env | grep -E '^(PI_|XCSH_|AI_AGENT=)' | sort";

let fixture: ExtensionFixture;

beforeAll(() => {
  fixture = createExtensionFixture({
    models: [{ id: "plain" }, { id: "thinker", reasoning: true }],
  });
  // A parent session's values (xcsh started from inside another agent) must not leak through.
  Object.assign(fixture.home.env, {
    PI_SESSION_ID: "parent-session",
    PI_SESSION_FILE: "/parent/session.jsonl",
    PI_MODEL: "parent-model",
    XCSH_SESSION_FILE: "/parent/session.jsonl",
    XCSH_REASONING_LEVEL: "parent-level",
    AI_AGENT: "parent-agent",
  });
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

/** The variables a `KEY=value` listing shows. */
function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split("\n")
      .filter((line) => line.includes("="))
      .map((line) => [line.slice(0, line.indexOf("=")), line.slice(line.indexOf("=") + 1)]),
  );
}

/** Has the model run `command` with `tool` and returns the variables of the result it received. */
async function envSeenByModel(rpc: RpcProcess, tool = "bash", command = SHOW_ENV): Promise<Record<string, string>> {
  fixture.server.enqueue({ content: [{ type: "toolCall", name: tool, arguments: { command } }] }, { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  const response = await rpc.request({ type: "prompt", message: "show the environment" });
  expect(response.success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 10_000, from);
  const request = fixture.server.requests.at(-1)!;
  const toolResult = request.body.messages.findLast((message: { role: string }) => message.role === "tool");
  expect(toolResult).toBeDefined();
  return parseEnv(textOf(toolResult));
}

async function state(rpc: RpcProcess) {
  return (await rpc.request({ type: "get_state" })).data;
}

describe("commands the model runs", () => {
  test("see the session, the model and the reasoning level under PI_* and XCSH_* names, and the process markers", async () => {
    const rpc = fixture.start(["--model", "fake/plain"]);
    const env = await envSeenByModel(rpc);
    const { sessionId, sessionFile } = await state(rpc);
    expect(sessionFile).toEndWith(".jsonl");
    for (const prefix of ["PI_", "XCSH_"]) {
      expect(env[`${prefix}SESSION_ID`]).toBe(sessionId);
      expect(env[`${prefix}SESSION_FILE`]).toBe(sessionFile);
      expect(env[`${prefix}PROVIDER`]).toBe("fake");
      expect(env[`${prefix}MODEL`]).toBe("plain");
      // A model without reasoning: the effective level is off.
      expect(env[`${prefix}REASONING_LEVEL`]).toBe("off");
    }
    expect(env.AI_AGENT).toBe("xcsh");
    expect(env.PI_CODING_AGENT).toBe("true");
    expect(env.XCSH_CODING_AGENT).toBe("true");
    await rpc.close();
  });

  test("follow set_model and set_thinking_level from the next command on", async () => {
    const rpc = fixture.start(["--model", "fake/plain"]);
    expect((await envSeenByModel(rpc)).PI_MODEL).toBe("plain");

    expect((await rpc.request({ type: "set_model", provider: "fake", modelId: "thinker" })).success).toBe(true);
    expect((await rpc.request({ type: "set_thinking_level", level: "high" })).success).toBe(true);
    const afterSwitch = await envSeenByModel(rpc);
    expect([afterSwitch.PI_MODEL, afterSwitch.XCSH_MODEL]).toEqual(["thinker", "thinker"]);
    expect([afterSwitch.PI_REASONING_LEVEL, afterSwitch.XCSH_REASONING_LEVEL]).toEqual(["high", "high"]);

    expect((await rpc.request({ type: "set_thinking_level", level: "low" })).success).toBe(true);
    expect((await envSeenByModel(rpc)).XCSH_REASONING_LEVEL).toBe("low");
    await rpc.close();
  });

  test("a new session shows its own id and file", async () => {
    const rpc = fixture.start(["--model", "fake/plain"]);
    const before = await envSeenByModel(rpc);
    expect((await rpc.request({ type: "new_session" })).success).toBe(true);
    const after = await envSeenByModel(rpc);
    const { sessionId, sessionFile } = await state(rpc);
    expect(after.PI_SESSION_ID).toBe(sessionId);
    expect(after.PI_SESSION_ID).not.toBe(before.PI_SESSION_ID);
    expect(after.XCSH_SESSION_FILE).toBe(sessionFile);
    await rpc.close();
  });

  test("with --no-session there is an id but no session file, and the parent's file does not show through", async () => {
    const rpc = fixture.start(["--model", "fake/plain", "--no-session"]);
    const env = await envSeenByModel(rpc);
    expect(env.PI_SESSION_ID).toBe((await state(rpc)).sessionId);
    expect(env.PI_SESSION_ID).not.toBe("parent-session");
    expect(env.PI_SESSION_FILE).toBeUndefined();
    expect(env.XCSH_SESSION_FILE).toBeUndefined();
    await rpc.close();
  });
});

describe("the user's own commands (RPC bash)", () => {
  test("get the process markers but no session variables, as in pi", async () => {
    const rpc = fixture.start(["--model", "fake/plain"]);
    const response = await rpc.request({ type: "bash", command: SHOW_ENV });
    expect(response.success).toBe(true);
    const env = parseEnv(response.data.output);
    expect(env.AI_AGENT).toBe("xcsh");
    expect(env.PI_CODING_AGENT).toBe("true");
    expect(env.XCSH_CODING_AGENT).toBe("true");
    expect(env.XCSH_MODEL).toBeUndefined();
    expect(env.PI_PROVIDER).toBeUndefined();
    await rpc.close();
  });
});

describe("a bash tool an extension makes with createBashTool and registers", () => {
  test("gets the session variables through its context; exposeSessionEnvironment: false leaves them out and drops inherited ones", async () => {
    const extension = fixture.writeExtension(
      "bash-copies.ts",
      `import { createBashTool } from "xcsh";
      export default function (pi) {
        pi.registerTool({ ...createBashTool(process.cwd()), name: "ext_bash", label: "ext_bash" });
        pi.registerTool({ ...createBashTool(process.cwd(), { exposeSessionEnvironment: false }), name: "quiet_bash", label: "quiet_bash" });
      }`,
    );
    const rpc = fixture.start(["-e", extension, "--model", "fake/thinker", "--thinking", "medium"]);
    const withSession = await envSeenByModel(rpc, "ext_bash");
    expect(withSession.PI_SESSION_ID).toBe((await state(rpc)).sessionId);
    expect(withSession.XCSH_MODEL).toBe("thinker");
    expect(withSession.PI_REASONING_LEVEL).toBe("medium");

    const quiet = await envSeenByModel(rpc, "quiet_bash");
    for (const name of ["PI_SESSION_ID", "PI_SESSION_FILE", "PI_MODEL", "XCSH_SESSION_FILE", "XCSH_REASONING_LEVEL"]) expect(quiet[name]).toBeUndefined();
    expect(quiet.AI_AGENT).toBe("xcsh");
    await rpc.close();
  });
});
