/**
 * Extensions live in folders without node_modules; whatever they import from
 * typebox, pi-ai, pi-tui or the host API must come from xcsh itself. One child
 * `bun` registers the host modules and imports fixture extensions written to a
 * temp dir outside the repo, then reports what each one saw.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const SRC = join(import.meta.dir, "../../src");

const FIXTURES: Record<string, string> = {
  "schemas.ts": `
    import { Type } from "typebox";
    import { Value } from "typebox/value";
    import { Compile } from "typebox/compile";
    import { Type as OldType } from "@sinclair/typebox";
    import { TypeCompiler } from "@sinclair/typebox/compiler";
    import { Value as OldValue } from "@sinclair/typebox/value";
    import { StringEnum, Type as AiType } from "@earendil-works/pi-ai";
    import { StringEnum as OldStringEnum, getModel, calculateCost, createAssistantMessageEventStream } from "@mariozechner/pi-ai";
    const params = Type.Object({ action: StringEnum(["list", "add"] as const), text: Type.Optional(Type.String()) });
    const stream = createAssistantMessageEventStream();
    stream.end();
    export default {
      enumSchema: params.properties.action,
      sameStringEnum: StringEnum === OldStringEnum,
      sameType: AiType === Type,
      valid: Value.Check(params, { action: "add", text: "x" }),
      invalid: Compile(params).Check({ action: "remove" }),
      oldCompiler: TypeCompiler.Compile(OldType.Number()).Check(3),
      oldValue: OldValue.Check(OldType.String(), 3),
      model: getModel("anthropic", "claude-sonnet-4-5")?.provider ?? null,
      cost: calculateCost({ cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 } }, { input: 1_000_000, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }).total,
    };
  `,
  "host-api.ts": `
    import xcsh, { CONFIG_DIR_NAME, isToolCallEventType, isBashToolResult, truncateHead, withFileMutationQueue, keyHint } from "xcsh";
    import { truncateHead as earendilTruncateHead, createReadTool, SessionManager } from "@earendil-works/pi-coding-agent";
    import { truncateHead as marioTruncateHead, getAgentDir, DEFAULT_MAX_LINES } from "@mariozechner/pi-coding-agent";
    const call = { type: "tool_call", toolName: "bash", toolCallId: "c1", input: { command: "ls" } } as const;
    export default {
      configDir: CONFIG_DIR_NAME,
      sameEverywhere: truncateHead === earendilTruncateHead && truncateHead === marioTruncateHead && xcsh.truncateHead === truncateHead,
      bashCall: isToolCallEventType("bash", call),
      readCall: isToolCallEventType("read", call),
      bashResult: isBashToolResult({ type: "tool_result", toolName: "bash", toolCallId: "c1", input: {}, content: [], details: undefined, isError: false }),
      truncated: truncateHead("1\\n2\\n3", { maxLines: 2 }).content,
      queued: await withFileMutationQueue("/tmp/x", async () => "ran"),
      hint: keyHint("app.tools.expand", "to expand"),
      readTool: createReadTool(process.cwd()).name,
      sessionManager: typeof SessionManager,
      agentDir: getAgentDir(),
      maxLines: DEFAULT_MAX_LINES,
    };
  `,
  "tui.ts": `
    import { Text, visibleWidth, matchesKey } from "@earendil-works/pi-tui";
    import { Text as OldText, Key, TUI } from "@mariozechner/pi-tui";
    import { CustomEditor, getSelectListTheme } from "@mariozechner/pi-coding-agent";
    let escaped = 0;
    class VimEditor extends CustomEditor {
      mode = "insert";
      handleInput(data: string) {
        if (matchesKey(data, "escape") && this.mode === "insert") { this.mode = "normal"; return; }
        super.handleInput(data);
      }
    }
    const tui = { requestRender() {} } as any;
    const editor = new VimEditor(tui, { borderColor: (s: string) => s, selectList: getSelectListTheme() }, { matches: (data: string, action: string) => action === "app.interrupt" && data === "\\x1b" } as any);
    editor.onEscape = () => escaped++;
    editor.handleInput("\\x1b");
    editor.handleInput("\\x1b");
    editor.handleInput("h");
    export default {
      rendered: new Text("hello", 0, 0).render(8),
      sameText: Text === OldText,
      width: visibleWidth("héllo"),
      escapeKey: matchesKey("\\x1b", Key.escape),
      tuiClass: typeof TUI,
      mode: editor.mode,
      escaped,
      text: editor.getText(),
      isEditor: editor instanceof CustomEditor,
    };
  `,
  "required.ts": `
    const { truncateHead } = require("xcsh");
    const { Text } = require("@mariozechner/pi-tui");
    const { Type } = require("typebox");
    export default { truncated: truncateHead("a\\nb", { maxLines: 1 }).content, text: new Text("x", 0, 0).render(2), type: Type.String().type };
  `,
  "unsupported.ts": `
    import { loginAnthropic } from "@mariozechner/pi-ai/oauth";
    import { streamSimpleAnthropic } from "@mariozechner/pi-ai/anthropic";
    import { registerFauxProvider } from "@earendil-works/pi-ai";
    import { createAgentSession } from "@mariozechner/pi-coding-agent";
    const thrown = (fn: () => unknown) => { try { fn(); return "no error"; } catch (error) { return (error as Error).message; } };
    export default {
      oauth: thrown(() => loginAnthropic()),
      faux: thrown(() => registerFauxProvider()),
      sdk: thrown(() => createAgentSession()),
      anthropic: typeof streamSimpleAnthropic,
    };
  `,
  "cloud-streams.ts": `
    // pi-ai's Vertex and Azure stream functions are xcsh's own providers, not stand-ins.
    import { streamSimpleGoogleVertex } from "@earendil-works/pi-ai/google-vertex";
    import { streamAzureOpenAIResponses } from "@earendil-works/pi-ai";
    const thrown = (fn: () => unknown) => { try { fn(); return "no error"; } catch (error) { return (error as Error).message; } };
    const model = (api: string) => ({ id: "m", name: "m", api, provider: api, baseUrl: "http://127.0.0.1:9", reasoning: false, input: ["text"], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 1000, maxTokens: 100 });
    export default {
      vertex: thrown(() => streamSimpleGoogleVertex(model("google-vertex") as any, { messages: [] }, { apiKey: "k" })),
      azure: thrown(() => streamAzureOpenAIResponses(model("azure-openai-responses") as any, { messages: [] }, { apiKey: "k" })),
    };
  `,
  "later-pi.ts": `
    // Names that arrived after pi 0.73: an extension written for a newer pi still loads.
    import { uuidv7, DEFAULT_MAX_AGENT_RETRY_DELAY_MS, contentText, InMemoryModelsStore } from "@earendil-works/pi-ai";
    import { ModelRuntime, parseArgs } from "@earendil-works/pi-coding-agent";
    const thrown = (fn: () => unknown) => { try { fn(); return "no error"; } catch (error) { return (error as Error).message; } };
    const ids = [uuidv7(), uuidv7(), uuidv7()];
    export default {
      uuidShape: ids.every((id) => /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(id)),
      ordered: [...ids].sort().join() === ids.join() && new Set(ids).size === 3,
      retryDelay: DEFAULT_MAX_AGENT_RETRY_DELAY_MS,
      contentText: contentText([{ type: "text", text: "a" }, { type: "image", data: "", mimeType: "image/png" }, { type: "text", text: "b" }]),
      modelsStore: thrown(() => new InMemoryModelsStore()),
      runtime: typeof ModelRuntime,
      parseArgs: thrown(() => parseArgs([])),
    };
  `,
};

const DRIVER = `
  import { registerHostModules } from ${JSON.stringify(join(SRC, "extensions/host-modules.ts"))};
  import * as codingAgent from ${JSON.stringify(join(SRC, "index.ts"))};
  await registerHostModules({ codingAgent });
  await registerHostModules({ codingAgent: {} }); // a second call changes nothing
  const report: Record<string, unknown> = {};
  for (const name of ${JSON.stringify(Object.keys(FIXTURES))}) {
    try {
      report[name] = (await import(\`\${import.meta.dir}/\${name}\`)).default;
    } catch (error) {
      report[name] = { failed: String(error) };
    }
  }
  console.log(JSON.stringify(report));
`;

let dir: string;
let report: Record<string, Record<string, unknown>>;

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "xcsh-host-modules-")));
  for (const [name, source] of Object.entries(FIXTURES)) writeFileSync(join(dir, name), source);
  writeFileSync(join(dir, "driver.ts"), DRIVER);
  const proc = Bun.spawn([process.execPath, "--no-install", join(dir, "driver.ts")], {
    cwd: dir,
    env: { ...process.env, XCSH_CODING_AGENT_DIR: join(dir, "agent") },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`driver exited ${code}: ${stderr}`);
  report = JSON.parse(stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("modules an extension imports, without node_modules", () => {
  test("typebox, @sinclair/typebox and pi-ai build and check tool schemas", () => {
    expect(report["schemas.ts"]).toEqual({
      enumSchema: { type: "string", enum: ["list", "add"] },
      sameStringEnum: true,
      sameType: true,
      valid: true,
      invalid: false,
      oldCompiler: true,
      oldValue: false,
      model: "anthropic",
      cost: 3,
    });
  });

  test("xcsh and both pi-coding-agent spellings are the same host API", () => {
    expect(report["host-api.ts"]).toEqual({
      configDir: ".xcsh",
      sameEverywhere: true,
      bashCall: true,
      readCall: false,
      bashResult: true,
      truncated: "1\n2",
      queued: "ran",
      hint: "ctrl+o to expand",
      readTool: "read",
      sessionManager: "function",
      agentDir: join(dir, "agent"),
      maxLines: 2000,
    });
  });

  test("pi-tui components render, and an editor can extend CustomEditor", () => {
    expect(report["tui.ts"]).toEqual({
      rendered: ["hello   "],
      sameText: true,
      width: 5,
      escapeKey: true,
      tuiClass: "function",
      mode: "normal",
      escaped: 1,
      text: "h",
      isEditor: true,
    });
  });

  test("an extension may require() the host modules too", () => {
    expect(report["required.ts"]).toEqual({ truncated: "a", text: ["x "], type: "string" });
  });

  test("names from later pi versions import: uuidv7 works, the others fail clearly when called", () => {
    expect(report["later-pi.ts"]).toEqual({
      uuidShape: true,
      ordered: true,
      retryDelay: 60_000,
      contentText: "a\nb",
      modelsStore: 'InMemoryModelsStore from "@earendil-works/pi-ai" is not supported by xcsh',
      runtime: "function",
      parseArgs: 'parseArgs from "@earendil-works/pi-coding-agent" is not supported by xcsh',
    });
  });

  test("pi-ai's Vertex and Azure stream functions are real providers", () => {
    expect(report["cloud-streams.ts"]).toEqual({ vertex: "no error", azure: "no error" });
  });

  test("what xcsh cannot do imports fine and fails clearly when called", () => {
    expect(report["unsupported.ts"]).toEqual({
      oauth: 'loginAnthropic from "@mariozechner/pi-ai/oauth" is not supported by xcsh',
      faux: 'registerFauxProvider from "@earendil-works/pi-ai" is not supported by xcsh',
      sdk: 'createAgentSession from "@mariozechner/pi-coding-agent" is not supported by xcsh',
      anthropic: "function",
    });
  });
});
