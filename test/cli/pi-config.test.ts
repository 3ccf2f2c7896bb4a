/**
 * A pi 0.87.1 user's settings.json and models.json, copied unchanged into xcsh's
 * config root, through the binary: xcsh starts without an error, the settings it
 * honours have pi's effect (shell, prefix, session folder, thinking "max", enabled
 * models, both apiKey spellings), and the ones it does not are named in one warning.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTestHome, runXcsh } from "../support/cli.ts";
import { startFakeLlm } from "../support/fake-llm/server.ts";
import { startRpc, type RpcProcess } from "../support/rpc-harness.ts";

const server = startFakeLlm();
const home = makeTestHome();
const cwd = join(home.home, "project");
mkdirSync(cwd, { recursive: true });
const shellLog = join(home.home, "shell.log");
const standInShell = join(home.home, "logging-shell");
// A shell that notes how it was called, then runs the command with the real one.
writeFileSync(standInShell, `#!/bin/sh\nprintf '%s\\n' "called with: $*" >> '${shellLog}'\nexec /bin/sh "$@"\n`);
chmodSync(standInShell, 0o755);

const env = { ...home.env, MYKEY: "sk-from-env", TEAM: "red" };
const base = server.baseUrl("openai-completions");
const api = "openai-completions";

/** Every provider spells its key a different way pi users do. */
const modelsJson = {
  providers: {
    fake: {
      baseUrl: base,
      api,
      apiKey: "$MYKEY",
      headers: { "x-team": "${TEAM}", "x-team-bare": "TEAM", "x-price": "5$$" },
      models: [{ id: "alpha", reasoning: true }, { id: "beta" }, { id: "gamma" }],
    },
    braced: { baseUrl: base, api, apiKey: "${MYKEY}", models: [{ id: "m" }] },
    bare: { baseUrl: base, api, apiKey: "MYKEY", models: [{ id: "m" }] },
    literal: { baseUrl: base, api, apiKey: "sk-literal", models: [{ id: "m" }] },
    unset: { baseUrl: base, api, apiKey: "${NOPE}", models: [{ id: "m" }] },
  },
};

/** A settings.json as pi 0.87.1's settings.md lays it out, table by table. */
function piSettings(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    defaultProvider: "fake",
    defaultModel: "alpha",
    defaultThinkingLevel: "max",
    modelThinkingLevels: { "fake/beta": "low" },
    thinkingBudgets: { minimal: 1024, low: 2048, medium: 8192, high: 16384 },
    hideThinkingBlock: false,
    showCacheMissNotices: false,
    cacheWarming: "streaming",
    steeringMode: "one-at-a-time",
    followUpMode: "all",
    externalEditor: "vim",
    doubleEscapeAction: "tree",
    treeFilterMode: "default",
    defaultProjectTrust: "always",
    defaultTools: ["read", "bash", "edit", "write", "grep"],
    sessionDir: "my-sessions",
    compaction: { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000, modelOverrides: { "fake/alpha": { reserveTokens: 8000 } } },
    branchSummary: { reserveTokens: 16384, skipPrompt: false },
    theme: "dark",
    quietStartup: true,
    tuiMode: "regular",
    fullscreenExitOutput: "transcript",
    fullscreenScrollbar: "auto",
    fullscreenCopyOnSelect: true,
    editorPaddingX: 0,
    outputPad: 1,
    autocompleteMaxVisible: 5,
    showHardwareCursor: false,
    terminal: { showImages: true, imageWidthCells: 60, clearOnShrink: false, showTerminalProgress: false, hyperlinks: "auto", images: "auto", trueColor: "auto" },
    images: { autoResize: true, blockImages: false },
    markdown: { codeBlockIndent: "  ", mermaid: "streaming" },
    transport: "websocket-cached",
    httpIdleTimeoutMs: 300000,
    websocketConnectTimeoutMs: 15000,
    retry: { enabled: true, maxRetries: 3, baseDelayMs: 2000, maxAgentDelayMs: 60000, provider: { timeoutMs: 120000, maxRetries: 0, maxRetryDelayMs: 60000 } },
    shellPath: standInShell,
    shellCommandPrefix: "export GREETING=from-prefix",
    npmCommand: ["npm"],
    packages: [],
    extensions: [],
    skills: [],
    prompts: [],
    themes: [],
    enableSkillCommands: true,
    collapseChangelog: false,
    enableInstallTelemetry: true,
    enableAnalytics: false,
    trackingId: "0b5c2e5e-7a51-4f5e-9d0e-3a3f1b2c4d5e",
    warnings: { anthropicExtraUsage: true },
    lastChangelogVersion: "0.87.1",
    ...overrides,
  };
}

const rpcs: RpcProcess[] = [];
function rpc(args: string[] = [], extraEnv: Record<string, string> = {}): RpcProcess {
  const process = startRpc({ env: { ...env, ...extraEnv }, cwd, args });
  rpcs.push(process);
  return process;
}

beforeEach(() => {
  server.clearScript();
  server.requests.length = 0;
  home.writeModelsJson(modelsJson);
  home.writeSettings(piSettings());
  writeFileSync(shellLog, "");
});

afterAll(async () => {
  for (const process of rpcs) process.kill();
  await Promise.all(rpcs.map((process) => process.proc.exited));
  await server.close();
  home.cleanup();
});

const print = (args: string[], extraEnv: Record<string, string> = {}, runIn = cwd) =>
  runXcsh(["-p", ...args], { env: { ...env, ...extraEnv }, cwd: runIn });

function authorizationOfLastRequest(): string | undefined {
  return server.requests.at(-1)?.headers.authorization;
}

describe("a pi 0.87.1 settings.json, unchanged", () => {
  test("-p starts without an error; the keys xcsh does not apply are named in one warning", async () => {
    server.enqueue({ content: [{ type: "text", text: "hello" }] });
    const result = await print(["hi"]);
    expect(result.stderr).not.toContain("internal error");
    expect(result.exitCode).toBe(0);
    expect(result.stdout.trim()).toBe("hello");
    const lines = result.stderr.trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`${join(home.agentDir, "settings.json")}: settings xcsh accepts but does not apply:`);
    for (const key of ["transport", "compaction.modelOverrides", "cacheWarming"]) {
      expect(lines[0]).toContain(`"${key}" (`);
    }
    // Honoured, or values that ask for what xcsh does anyway, are not listed.
    for (const key of ["theme", "themes", "quietStartup", "hideThinkingBlock", "sessionDir", "externalEditor", "tuiMode", "images.blockImages", "images.autoResize", "lastChangelogVersion", "enableInstallTelemetry", "packages"]) {
      expect(lines[0]).not.toContain(`"${key}"`);
    }
    expect(result.stderr).not.toContain("unknown key");
  });

  test("--mode rpc starts and get_state shows the settings' model, with thinking \"max\" as the model's highest level", async () => {
    const process = rpc();
    const state = await process.request({ type: "get_state" });
    expect(state.success).toBe(true);
    expect(state.data.model).toMatchObject({ provider: "fake", id: "alpha" });
    expect(state.data.thinkingLevel).toBe("high"); // alpha reasons, without xhigh: its highest is high
    expect(state.data.followUpMode).toBe("all");
    expect(process.stderr).not.toContain("internal error");
  });

  test("each setting that pi treats as valid starts xcsh (exit 0), alone as well", async () => {
    for (const setting of [{ defaultThinkingLevel: "max" }, { defaultProjectTrust: "always" }, { defaultProjectTrust: "never" }, { transport: "websocket-cached" }, { transport: "websocket" }]) {
      home.writeSettings(setting);
      server.enqueue({ content: [{ type: "text", text: "ok" }] });
      const result = await print(["--model", "fake/alpha", "--no-session", "hi"]);
      expect({ setting, exitCode: result.exitCode }).toEqual({ setting, exitCode: 0 });
    }
  });

  test("a wrong type for a setting xcsh honours is still an error naming the field (exit 2)", async () => {
    home.writeSettings(piSettings({ sessionDir: 5 }));
    const result = await print(["hi"]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain("sessionDir");
    expect(result.stderr).not.toContain("internal error");
  });
});

describe("shellPath and shellCommandPrefix", () => {
  test("the bash tool runs through shellPath, with shellCommandPrefix before the command", async () => {
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: 'echo "greeting=$GREETING"' } }] }, { content: [{ type: "text", text: "done" }] });
    const result = await print(["--no-session", "run it"]);
    expect(result.exitCode).toBe(0);
    // The prefix's variable reached the command: what the model was sent back as the tool result.
    expect(JSON.stringify(server.requests[1].body.messages)).toContain("greeting=from-prefix");
    const log = readFileSync(shellLog, "utf8");
    expect(log).toContain("called with: -c export GREETING=from-prefix");
    expect(log).toContain('echo "greeting=$GREETING"');
  });

  test("a shellPath that does not exist makes the tool fail with a message naming it; xcsh goes on", async () => {
    home.writeSettings(piSettings({ shellPath: join(home.home, "no-such-shell") }));
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "echo hi" } }] }, { content: [{ type: "text", text: "done" }] });
    const result = await print(["--no-session", "run it"]);
    expect(result.exitCode).toBe(0);
    expect(JSON.stringify(server.requests[1].body.messages)).toContain(`Shell not found: ${join(home.home, "no-such-shell")}`);
  });

  test("a user command (RPC bash) runs through shellPath, with the prefix", async () => {
    const process = rpc();
    const response = await process.request({ type: "bash", command: 'echo "user=$GREETING"' });
    expect(response.data.output).toContain("user=from-prefix");
    expect(readFileSync(shellLog, "utf8")).toContain("called with: -c");
  });
});

describe("defaultProjectTrust", () => {
  test('"always" lets a project\'s code-running settings apply; "never" leaves them out', async () => {
    mkdirSync(join(cwd, ".xcsh"), { recursive: true });
    writeFileSync(join(cwd, ".xcsh", "settings.json"), JSON.stringify({ shellCommandPrefix: "export FROM_PROJECT=yes" }));
    try {
      for (const [trust, expected] of [["always", "project=yes"], ["never", "project=."]]) {
        home.writeSettings({ defaultProjectTrust: trust });
        server.clearScript();
        server.requests.length = 0;
        server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: 'echo "project=${FROM_PROJECT:-.}"' } }] }, { content: [{ type: "text", text: "done" }] });
        const result = await print(["--model", "fake/alpha", "--no-session", "run it"]);
        expect({ trust, exitCode: result.exitCode }).toEqual({ trust, exitCode: 0 });
        expect({ trust, sent: JSON.stringify(server.requests[1].body.messages).includes(expected) }).toEqual({ trust, sent: true });
      }
    } finally {
      rmSync(join(cwd, ".xcsh"), { recursive: true, force: true });
    }
  });
});

describe("sessionDir", () => {
  const sessionFiles = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".jsonl")) : []);

  test("a relative sessionDir is taken from the working directory and receives the session file", async () => {
    const before = sessionFiles(join(cwd, "my-sessions")).length;
    server.enqueue({ content: [{ type: "text", text: "hello" }] });
    const result = await print(["hi"]);
    expect(result.exitCode).toBe(0);
    expect(sessionFiles(join(cwd, "my-sessions"))).toHaveLength(before + 1);
    expect(existsSync(join(home.agentDir, "sessions"))).toBe(false);
  });

  test("XCSH_CODING_AGENT_SESSION_DIR overrides the setting; --session-dir overrides both", async () => {
    server.enqueue({ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] });
    const fromEnv = join(home.home, "env-sessions");
    const fromFlag = join(home.home, "flag-sessions");
    expect((await print(["hi"], { XCSH_CODING_AGENT_SESSION_DIR: fromEnv })).exitCode).toBe(0);
    expect((await print(["--session-dir", fromFlag, "hi"], { XCSH_CODING_AGENT_SESSION_DIR: fromEnv })).exitCode).toBe(0);
    expect(sessionFiles(fromEnv)).toHaveLength(1);
    expect(sessionFiles(fromFlag)).toHaveLength(1);
  });

  test("--session <id prefix> finds a session stored in sessionDir", async () => {
    const dir = join(home.home, "by-id");
    home.writeSettings(piSettings({ sessionDir: dir }));
    server.enqueue({ content: [{ type: "text", text: "stored answer" }] }, { content: [{ type: "text", text: "again" }] });
    expect((await print(["first question"])).exitCode).toBe(0);
    const [file] = sessionFiles(dir);
    const id = file.replace(/\.jsonl$/, "").split("_").at(-1)!;
    const resumed = await print(["--session", id.slice(0, 8), "next question"]);
    expect(resumed.stderr).not.toContain("No session");
    expect(resumed.exitCode).toBe(0);
    expect(JSON.stringify(server.requests[1].body.messages)).toContain("stored answer");
  });

  test("-c continues the most recent session from sessionDir", async () => {
    const dir = join(home.home, "continued");
    home.writeSettings(piSettings({ sessionDir: dir }));
    server.enqueue({ content: [{ type: "text", text: "first answer" }] }, { content: [{ type: "text", text: "second answer" }] });
    expect((await print(["first question"])).exitCode).toBe(0);
    expect((await print(["-c", "second question"])).exitCode).toBe(0);
    expect(sessionFiles(dir)).toHaveLength(1);
    expect(JSON.stringify(server.requests[1].body.messages)).toContain("first answer");
  });
});

describe("enabledModels", () => {
  test("startup picks among the enabled models and cycle_model goes round them only", async () => {
    home.writeSettings(piSettings({ defaultModel: undefined, enabledModels: ["fake/beta", "gam*", "literal/m"] }));
    const process = rpc();
    const state = await process.request({ type: "get_state" });
    expect(state.data.model).toMatchObject({ provider: "fake", id: "beta" });
    expect(state.data.thinkingLevel).toBe("off"); // modelThinkingLevels says low, but beta does not reason
    const seen: string[] = [];
    for (let turn = 0; turn < 3; turn++) {
      const cycled = await process.request({ type: "cycle_model" });
      expect(cycled.data.isScoped).toBe(true);
      seen.push(`${cycled.data.model.provider}/${cycled.data.model.id}`);
    }
    expect(seen).toEqual(["fake/gamma", "literal/m", "fake/beta"]);
  });

  test("the settings' default model wins at startup when it is enabled; a pattern's :level sets its thinking", async () => {
    home.writeSettings(piSettings({ defaultModel: "alpha", enabledModels: ["beta", "alpha:low"] }));
    const state = await rpc().request({ type: "get_state" });
    expect(state.data.model).toMatchObject({ provider: "fake", id: "alpha" });
    expect(state.data.thinkingLevel).toBe("low");
  });

  test("a pattern that matches nothing is named in a warning", async () => {
    home.writeSettings({ enabledModels: ["fake/beta", "no-such-model"] });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await print(["--no-session", "hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain('settings enabledModels: "no-such-model" matches no model with an API key.');
    expect(server.requests[0].model).toBe("beta");
  });
});

describe("thinking levels from settings", () => {
  test("switching model starts it at its modelThinkingLevels entry, else at defaultThinkingLevel (\"max\": its highest)", async () => {
    home.writeSettings(piSettings({ modelThinkingLevels: { "fake/alpha": "low" } }));
    const process = rpc(["--model", "fake/beta"]);
    expect((await process.request({ type: "get_state" })).data.thinkingLevel).toBe("off");
    await process.request({ type: "set_model", provider: "fake", modelId: "alpha" });
    expect((await process.request({ type: "get_state" })).data.thinkingLevel).toBe("low");

    home.writeSettings(piSettings({ modelThinkingLevels: {} }));
    const other = rpc(["--model", "fake/beta"]);
    await other.request({ type: "set_model", provider: "fake", modelId: "alpha" });
    expect((await other.request({ type: "get_state" })).data.thinkingLevel).toBe("high");
  });
});

describe("defaultThinkingLevel \"medium\": pi 1.6.0's default, set by hand", () => {
  // Side by side with pi 1.6.0 and no setting (its default is "medium"): the same levels at each step.
  test("a reasoning model starts at medium and asks for it; a plain one runs off; a new session starts at medium again", async () => {
    home.writeSettings({ defaultThinkingLevel: "medium" });
    const process = rpc(["--model", "fake/alpha", "--no-session"]);
    const level = async () => (await process.request({ type: "get_state" })).data.thinkingLevel;
    expect(await level()).toBe("medium");
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const from = process.mark();
    await process.request({ type: "prompt", message: "hi" });
    await process.waitForEvent("agent_end", () => true, 15_000, from);
    expect(server.requests.at(-1)!.body.reasoning_effort).toBe("medium");

    await process.request({ type: "set_model", provider: "fake", modelId: "beta" });
    expect(await level()).toBe("off");
    await process.request({ type: "set_model", provider: "fake", modelId: "alpha" });
    expect(await level()).toBe("medium");
    expect((await process.request({ type: "cycle_thinking_level" })).data.level).toBe("high");
    await process.request({ type: "new_session" });
    expect(await level()).toBe("medium");
  });

  test("without the setting xcsh starts at off, keeps the level in use for a new session, and sends no reasoning effort", async () => {
    home.writeSettings({});
    const process = rpc(["--model", "fake/alpha", "--no-session"]);
    const level = async () => (await process.request({ type: "get_state" })).data.thinkingLevel;
    expect(await level()).toBe("off");
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const from = process.mark();
    await process.request({ type: "prompt", message: "hi" });
    await process.waitForEvent("agent_end", () => true, 15_000, from);
    expect(server.requests.at(-1)!.body.reasoning_effort).toBeUndefined();
    await process.request({ type: "set_thinking_level", level: "high" });
    await process.request({ type: "new_session" });
    expect(await level()).toBe("high");
  });
});

describe("models.json apiKey and headers, as pi 0.87.1 and 0.73.1 spell them", () => {
  const cases: [string, string][] = [
    ["fake/alpha", "Bearer sk-from-env"], // "$MYKEY"
    ["braced/m", "Bearer sk-from-env"], // "${MYKEY}"
    ["bare/m", "Bearer sk-from-env"], // "MYKEY", a set variable (0.73.1)
    ["literal/m", "Bearer sk-literal"], // a literal key
  ];
  for (const [model, authorization] of cases) {
    test(`${model} sends ${authorization}`, async () => {
      server.enqueue({ content: [{ type: "text", text: "ok" }] });
      const result = await print(["--model", model, "--no-session", "hi"]);
      expect(result.exitCode).toBe(0);
      expect(authorizationOfLastRequest()).toBe(authorization);
    });
  }

  test("header values are read the same way; $$ is a literal $", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    expect((await print(["--model", "fake/alpha", "--no-session", "hi"])).exitCode).toBe(0);
    const headers = server.requests[0].headers;
    expect([headers["x-team"], headers["x-team-bare"], headers["x-price"]]).toEqual(["red", "red", "5$"]);
  });

  test("${NOPE} unset: -p stops with a credentials error naming the variable and the provider, and sends nothing", async () => {
    const result = await print(["--model", "unset/m", "--no-session", "hi"]);
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain(`Cannot resolve the "apiKey" of provider "unset" in ${join(home.agentDir, "models.json")}: environment variable NOPE is not set.`);
    expect(server.requests).toHaveLength(0);
  });

  test("${NOPE} unset in RPC: the prompt ends with that error as errorMessage; set_model to it is refused with it", async () => {
    const process = rpc(["--model", "unset/m"]);
    expect((await process.request({ type: "prompt", message: "hi" })).success).toBe(true);
    const end = await process.waitForEvent("agent_end");
    const last = end.messages.at(-1);
    expect(last.stopReason).toBe("error");
    expect(last.errorMessage).toContain("environment variable NOPE is not set");
    expect(server.requests).toHaveLength(0);

    const other = rpc(["--model", "fake/alpha"]);
    const refused = await other.request({ type: "set_model", provider: "unset", modelId: "m" });
    expect(refused.success).toBe(false);
    expect(refused.error).toContain('"apiKey" of provider "unset"');
    expect(refused.error).toContain("NOPE");
  });

  test("a model whose ${VAR} is unset is not offered as available", async () => {
    const models = await rpc(["--model", "fake/alpha"]).request({ type: "get_available_models" });
    const names = models.data.models.map((model: { provider: string; id: string }) => `${model.provider}/${model.id}`);
    expect(names).toContain("braced/m");
    expect(names).not.toContain("unset/m");
  });
});

describe("defaultTools and httpProxy", () => {
  test("defaultTools sets the tools the model is offered; a tool xcsh lacks is named", async () => {
    home.writeSettings({ defaultTools: ["read", "grep", "powershell"] });
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await print(["--model", "fake/alpha", "--no-session", "hi"]);
    expect(result.exitCode).toBe(0);
    const offered = server.requests[0].body.tools.map((tool: { function: { name: string } }) => tool.function.name);
    expect(offered).toEqual(["read", "grep"]);
    expect(result.stderr).toContain('settings defaultTools: xcsh has no built-in tool "powershell"');
  });

  test("httpProxy in the global settings routes provider requests through the proxy", async () => {
    const proxy = startFakeLlm({ script: [{ content: [{ type: "text", text: "via proxy" }] }] });
    mkdirSync(join(cwd, ".xcsh"), { recursive: true });
    try {
      home.writeSettings({ httpProxy: proxy.url });
      // The model's own server is a port nothing listens on: only the proxy can answer.
      home.writeModelsJson({ providers: { far: { baseUrl: "http://127.0.0.1:9/v1", api, apiKey: "k", models: [{ id: "m" }] } } });
      const result = await print(["--model", "far/m", "--no-session", "hi"], { HTTP_PROXY: "", HTTPS_PROXY: "", http_proxy: "", https_proxy: "" });
      expect(result.stdout.trim()).toBe("via proxy");
      expect(proxy.requests).toHaveLength(1);

      // A project's settings cannot choose the proxy (it would see the API key).
      home.writeSettings({ retry: { enabled: false } }); // the unreachable server fails at once
      writeFileSync(join(cwd, ".xcsh", "settings.json"), JSON.stringify({ httpProxy: proxy.url }));
      proxy.enqueue({ content: [{ type: "text", text: "via proxy" }] });
      const fromProject = await print(["--model", "far/m", "--no-session", "hi"], { HTTP_PROXY: "", HTTPS_PROXY: "", http_proxy: "", https_proxy: "" });
      expect(fromProject.exitCode).not.toBe(0);
      expect(proxy.requests).toHaveLength(1);
    } finally {
      rmSync(join(cwd, ".xcsh"), { recursive: true, force: true });
      await proxy.close();
    }
  });
});

