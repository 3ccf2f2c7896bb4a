/**
 * Smoke test of a built executable, run as a new user would meet it: a clean
 * temporary HOME, a project folder that carries its own bunfig.toml and .env
 * (which must not affect xcsh), and the fake LLM server on loopback.
 *
 *   bun scripts/smoke-test.ts [binary] [--via "qemu-aarch64 -L /usr/aarch64-linux-gnu"]
 *
 * The binary defaults to dist/xcsh-<os>-<arch> for this machine, else dist/xcsh.
 * `--via` runs it through an emulator, to try another architecture's build.
 * Prints one line per check and closes with "smoke: N passed, N failed, N skipped";
 * exits non-zero when a check failed.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { startFakeLlm, type FakeLlmServer } from "../test/support/fake-llm/server.ts";
import { binaryName, hostTarget } from "./build-binaries.ts";
import { isEvent, isResponse, RpcProcess } from "./bench/rpc-process.ts";

export interface SmokeOptions {
  binary: string;
  /** Command prefix that runs the binary (an emulator); empty to run it directly. */
  via?: string[];
  log?: (line: string) => void;
}

export interface SmokeResult {
  name: string;
  outcome: "passed" | "failed" | "skipped";
  detail?: string;
}

interface Context {
  command: string[];
  env: Record<string, string>;
  home: string;
  project: string;
  server: FakeLlmServer;
}

type Check = { name: string; skip?: string; run(context: Context): Promise<void> };

class CheckFailed extends Error {}
function expect(condition: unknown, message: string): asserts condition {
  if (!condition) throw new CheckFailed(message);
}

async function run(context: Context, args: string[]) {
  const proc = Bun.spawn([...context.command, ...args], {
    env: context.env,
    cwd: context.project,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { stdout, stderr, code };
}

/** Runs `use` against `xcsh --mode rpc`; the process never outlives the check. */
async function withRpc(context: Context, use: (rpc: RpcProcess) => Promise<void>): Promise<void> {
  const rpc = new RpcProcess([...context.command, "--mode", "rpc", "--no-session"], {
    env: context.env,
    cwd: context.project,
    keepLines: true,
    killAfterMs: 30_000,
  });
  try {
    await use(rpc);
  } finally {
    rpc.kill();
  }
}

/**
 * Runs `use` against `xcsh --mode rpc` with the smoke extension installed in the user's
 * extensions folder, then removes it, so the other checks meet xcsh as installed.
 * Ends by closing stdin and expecting exit code 0.
 */
async function withExtension(context: Context, use: (rpc: RpcProcess) => Promise<void>): Promise<void> {
  const folder = join(context.home, ".xcsh", "agent", "extensions");
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "smoke-extension.ts"), EXTENSION_SOURCE);
  try {
    await withRpc(context, async (rpc) => {
      await use(rpc);
      rpc.closeStdin();
      const code = await rpc.exited;
      expect(code === 0, `exit code ${code}; stderr: ${rpc.stderr.slice(0, 300)}`);
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

const PRELOAD_MARKER = "bunfig-preload-ran";
const PROJECT_NAME = "project";
const EXTENSION_TOOL = "reverse_word";
const EXTENSION_COMMAND = "smoke-hello";
const EXTENSION_COMMAND_DESCRIPTION = "Say hello to the host";
/** A pi-style extension: the host API and typebox come from inside the binary, not from node_modules. */
const EXTENSION_SOURCE = `import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { formatSize } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";

export default function (pi: ExtensionAPI) {
  pi.registerTool({
    name: ${JSON.stringify(EXTENSION_TOOL)},
    label: "Reverse word",
    description: "Reverse a word",
    parameters: Type.Object({ word: Type.String({ description: "The word to reverse" }) }),
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const reversed = [...params.word].reverse().join("");
      const folder = ctx.cwd.split("/").pop();
      return { content: [{ type: "text", text: reversed + ", reversed in " + folder }], details: { size: formatSize(reversed.length) } };
    },
  });
  pi.registerCommand(${JSON.stringify(EXTENSION_COMMAND)}, {
    description: ${JSON.stringify(EXTENSION_COMMAND_DESCRIPTION)},
    handler: async (args, ctx) => ctx.ui.notify("hello " + args.trim(), "info"),
  });
  pi.on("tool_call", async (event) => {
    if (event.toolName === "bash") return { block: true, reason: "the smoke extension allows no bash" };
  });
}
`;
const GREETING = "Hello from the smoke test, streamed in small pieces.";

const CHECKS: Check[] = [
  {
    name: "--version names the version, commit and build date",
    async run(context) {
      const { stdout, code } = await run(context, ["--version"]);
      expect(code === 0, `exit code ${code}`);
      const match = /^xcsh (\S+) \((\S+) (\d{4}-\d{2}-\d{2}); bun \S+; (\S+)\)$/.exec(stdout.trim());
      expect(match, `unexpected output: ${stdout.trim()}`);
      expect(match[1] === packageJson.version, `version ${match[1]}, package.json says ${packageJson.version}`);
      expect(match[2] !== "unknown", "no commit embedded");
    },
  },
  {
    name: "--help shows usage and the RPC mode",
    async run(context) {
      const { stdout, code } = await run(context, ["--help"]);
      expect(code === 0, `exit code ${code}`);
      expect(stdout.includes("Usage:") && stdout.includes("--mode"), `help text lacks Usage/--mode: ${stdout.slice(0, 200)}`);
    },
  },
  {
    name: "--mode rpc answers get_state and exits 0 when stdin closes",
    run: (context) =>
      withRpc(context, async (rpc) => {
        rpc.send({ id: "state", type: "get_state" });
        const frame = await rpc.waitFor(isResponse("get_state"));
        rpc.closeStdin();
        const code = await rpc.exited;
        const response = JSON.parse(frame.text!);
        expect(response.id === "state" && response.success === true, `response: ${frame.text!.slice(0, 300)}`);
        expect(response.data.model?.provider === "fake", `model ${JSON.stringify(response.data.model)}; the project's .env must not move the config dir`);
        expect(code === 0, `exit code ${code}`);
      }),
  },
  {
    name: "a bunfig.toml in the working directory is ignored",
    async run(context) {
      const { code } = await run(context, ["--version"]);
      expect(code === 0, `exit code ${code}`);
      expect(!existsSync(join(context.project, PRELOAD_MARKER)), "the project's bunfig.toml preload ran inside xcsh");
    },
  },
  {
    name: "a prompt streams the fake server's answer through to agent_end",
    run: (context) =>
      withRpc(context, async (rpc) => {
        context.server.enqueue({ content: [{ type: "text", text: GREETING }], chunkSize: 5, chunkDelayMs: 5 });
        rpc.send({ id: "p", type: "prompt", message: "Say hello" });
        const end = await rpc.waitFor(isEvent("agent_end"));
        rpc.closeStdin();
        const code = await rpc.exited;
        const frames = rpc.frames.map((frame) => JSON.parse(frame.text!));
        const prompt = frames.find((frame) => frame.type === "response" && frame.command === "prompt");
        expect(prompt?.success === true, `prompt response: ${JSON.stringify(prompt)}`);
        const deltas = frames
          .filter((frame) => frame.type === "message_update" && frame.assistantMessageEvent?.type === "text_delta")
          .map((frame) => frame.assistantMessageEvent.delta as string);
        expect(deltas.length > 1, `expected several text deltas, got ${deltas.length}`);
        expect(deltas.join("") === GREETING, `streamed text: ${JSON.stringify(deltas.join(""))}`);
        const last = JSON.parse(end.text!).messages?.at(-1);
        expect(last?.role === "assistant" && last.content?.[0]?.text === GREETING, `agent_end's last message: ${JSON.stringify(last)}`);
        expect(code === 0, `exit code ${code}`);
      }),
  },
  {
    name: "an extension in ~/.xcsh/agent/extensions (no node_modules) loads; get_commands lists its command",
    run: (context) =>
      withExtension(context, async (rpc) => {
        rpc.send({ id: "commands", type: "get_commands" });
        const response = JSON.parse((await rpc.waitFor(isResponse("get_commands"))).text!);
        const errors = rpc.frames.filter((frame) => frame.type === "extension_error").map((frame) => frame.text);
        expect(errors.length === 0, `extension_error: ${errors.join(" ")}`);
        const command = response.data?.commands?.find((entry: { name: string }) => entry.name === EXTENSION_COMMAND);
        expect(command?.source === "extension", `get_commands: ${JSON.stringify(response).slice(0, 400)}`);
        expect(command.description === EXTENSION_COMMAND_DESCRIPTION, `description ${JSON.stringify(command.description)}`);
      }),
  },
  {
    name: "the model calls the extension's tool and its result reaches the model",
    run: (context) =>
      withExtension(context, async (rpc) => {
        const before = context.server.requests.length;
        context.server.enqueue(
          { content: [{ type: "toolCall", id: "call_smoke", name: EXTENSION_TOOL, arguments: { word: "smoke" } }] },
          { content: [{ type: "text", text: "The tool answered." }] },
        );
        rpc.send({ id: "p", type: "prompt", message: "Reverse the word smoke" });
        const end = JSON.parse((await rpc.waitFor(isEvent("tool_execution_end"))).text!);
        await rpc.waitFor(isEvent("agent_end"));
        expect(end.toolName === EXTENSION_TOOL && end.isError === false, `tool_execution_end: ${JSON.stringify(end).slice(0, 400)}`);
        const offered = (context.server.requests[before]?.body.tools ?? []).map((tool: any) => tool.function?.name);
        expect(offered.includes(EXTENSION_TOOL), `tools offered to the model: ${offered.join(", ")}`);
        const followUp = context.server.requests[before + 1];
        expect(followUp, "the model was not asked again after the tool ran");
        const toolMessages = followUp.body.messages.filter((message: any) => message.role === "tool");
        const expected = `ekoms, reversed in ${PROJECT_NAME}`;
        expect(JSON.stringify(toolMessages).includes(expected), `tool result sent to the model: ${JSON.stringify(toolMessages).slice(0, 300)}; expected ${expected}`);
      }),
  },
  {
    name: "a /command prompt runs the extension's command, which notifies the host",
    run: (context) =>
      withExtension(context, async (rpc) => {
        const before = context.server.requests.length;
        rpc.send({ id: "c", type: "prompt", message: `/${EXTENSION_COMMAND} from the smoke test` });
        const notice = JSON.parse((await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.text!.includes('"notify"'))).text!);
        const response = JSON.parse((await rpc.waitFor(isResponse("prompt"))).text!);
        expect(response.success === true, `prompt response: ${JSON.stringify(response)}`);
        expect(notice.method === "notify" && notice.message === "hello from the smoke test", `notify request: ${JSON.stringify(notice)}`);
        expect(context.server.requests.length === before, "the command prompt went to the model");
      }),
  },
];

function makeContext(options: SmokeOptions, server: FakeLlmServer): Context {
  const home = mkdtempSync(join(tmpdir(), "xcsh-smoke-"));
  const agentDir = join(home, ".xcsh", "agent");
  const project = join(home, PROJECT_NAME);
  mkdirSync(agentDir, { recursive: true });
  mkdirSync(project);
  writeFileSync(
    join(agentDir, "models.json"),
    JSON.stringify({
      providers: {
        fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "smoke-key", models: [{ id: "smoke-model" }] },
      },
    }),
  );
  // A project of the user's own, written in Bun: neither file may reach xcsh.
  writeFileSync(join(project, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(join(project, PRELOAD_MARKER))}, "x");\n`);
  writeFileSync(join(project, "bunfig.toml"), `preload = ["./preload.ts"]\n`);
  writeFileSync(join(project, ".env"), `XCSH_CODING_AGENT_DIR=${join(home, "not-the-config")}\n`);

  // Only what a fresh login has: no keys, no XCSH_ settings from the caller.
  const env: Record<string, string> = { HOME: home, PATH: process.env.PATH ?? "/usr/bin:/bin", LANG: "C.UTF-8" };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  return { command: [...(options.via ?? []), options.binary], env, home, project, server };
}

export async function runSmokeTest(options: SmokeOptions): Promise<SmokeResult[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const server = startFakeLlm();
  const context = makeContext(options, server);
  const results: SmokeResult[] = [];
  try {
    for (const check of CHECKS) {
      if (check.skip) {
        results.push({ name: check.name, outcome: "skipped", detail: check.skip });
        log(`skip  ${check.name} — ${check.skip}`);
        continue;
      }
      try {
        await check.run(context);
        results.push({ name: check.name, outcome: "passed" });
        log(`ok    ${check.name}`);
      } catch (error) {
        const detail = (error as Error).message;
        results.push({ name: check.name, outcome: "failed", detail });
        log(`FAIL  ${check.name} — ${detail}`);
      }
    }
  } finally {
    await server.close();
    rmSync(context.home, { recursive: true, force: true });
  }
  const count = (outcome: SmokeResult["outcome"]) => results.filter((result) => result.outcome === outcome).length;
  log(`smoke: ${count("passed")} passed, ${count("failed")} failed, ${count("skipped")} skipped`);
  return results;
}

function defaultBinary(): string {
  const host = hostTarget();
  const release = host && join(import.meta.dir, "..", "dist", binaryName(host));
  if (release && existsSync(release)) return release;
  return join(import.meta.dir, "..", "dist", process.platform === "win32" ? "xcsh.exe" : "xcsh");
}

if (import.meta.main) {
  const argv = process.argv.slice(2);
  const viaIndex = argv.indexOf("--via");
  const via = viaIndex === -1 ? [] : argv.splice(viaIndex, 2)[1].split(" ").filter(Boolean);
  const binary = resolve(argv[0] ?? defaultBinary());
  if (!existsSync(binary)) {
    console.error(`smoke-test: ${binary} does not exist (build it with bun run build or scripts/build-binaries)`);
    process.exit(2);
  }
  console.log(`smoke-test: ${binary}${via.length ? ` via ${via.join(" ")}` : ""}`);
  const results = await runSmokeTest({ binary, via });
  process.exit(results.some((result) => result.outcome === "failed") ? 1 : 0);
}
