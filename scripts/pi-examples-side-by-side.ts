/**
 * Loads each of pi 1.6.0's example extensions alone, in pi 1.6.0 and in the built xcsh,
 * over `--mode rpc` against the fake LLM server, and prints a table of where they differ:
 * load errors (extension_error frames, "error" lines on stderr), the commands get_commands
 * lists (prompt templates and skills as `prompt:name` / `skill:name`), the tools the model is offered on a first prompt, and the flags `--help` shows.
 * Not shipped; a tool for issue #33. Run `bun run build` first.
 *
 *   bun scripts/pi-examples-side-by-side.ts [name …] [--json FILE] [--commands]
 *
 * With --commands, each command an example registers is also run bare (`/name`) in both,
 * and what the user is shown (notify, status, widget, dialogs; errors) is compared. With
 * --tools, the fake model calls each tool an example offers once (TOOL_CALLS) and the
 * results are compared.
 *
 * Each example is copied to a temp folder; a folder whose package.json names dependencies
 * gets them from this repository's node_modules when they are installed there, else from
 * test/extensions/fixtures/fake-registry (linked where `bun install` would place them). Dialogs an example opens
 * are cancelled, so a first prompt always ends.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../test/support/fake-llm/server.ts";

type Frame = Record<string, any>;
const ROOT = join(import.meta.dir, "..");
const EXAMPLES = join(ROOT, "node_modules/pi-coding-agent-160/examples/extensions");
const PI_CLI = join(ROOT, "node_modules/pi-coding-agent-160/dist/bundle/cli.js");
/** Packages the examples need that are not installed here, as small stand-ins (see the folder's package.json files). */
const FAKE_REGISTRY = join(ROOT, "test/extensions/fixtures/fake-registry");
const jsonIndex = process.argv.indexOf("--json");
const jsonOut = jsonIndex === -1 ? undefined : process.argv[jsonIndex + 1];
const runCommands = process.argv.includes("--commands");
const runTools = process.argv.includes("--tools");
/** With --tools: the call the fake model makes of each example tool (arguments a model would pick). */
const BUILT_IN_NAMES = ["read", "bash", "edit", "write", "ls", "find", "grep"];
/** Examples that replace built-in tools: their read/bash/… are called too. */
const OVERRIDES = ["bash-spawn-hook.ts", "built-in-tool-renderer.ts", "minimal-mode.ts", "ssh.ts", "tool-override.ts", "gondolin"];
const TOOL_CALLS: Record<string, Record<string, unknown>> = {
  hello: { name: "World" },
  question: { question: "Which colour?", options: [{ label: "red" }, { label: "blue" }] },
  questionnaire: { questions: [{ id: "colour", prompt: "Which colour?", options: [{ value: "red", label: "Red" }] }] },
  parse_duration: { duration: "2 days" },
  echo_session: { message: "hi" },
  todo: { action: "add", text: "write tests" },
  rg: { pattern: "nothing-matches-this" },
  structured_output: { headline: "H", summary: "S", actionItems: ["a"] },
  tic_tac_toe_see_board: {},
  tic_tac_toe: { action: "move_up" },
  read: { path: "missing.txt" },
  ls: {},
  find: { pattern: "*.md" },
  grep: { pattern: "x" },
  bash: { command: "echo from-bash" },
};
/** pi's bundled extensions' commands, never run by --commands. */
const baselineCommands = new Set(["llama", "mcp"]);
const chosen = process.argv.slice(2).filter((arg, index, all) => !arg.startsWith("--") && all[index - 1] !== "--json");

export interface Observation {
  errors: string[];
  commands: string[];
  tools: string[];
  flags: string[];
  prompted: boolean;
  /** With --commands: per command run bare (`/name`), what the user was shown. */
  shown: Record<string, string[]>;
}

export function exampleNames(): string[] {
  return readdirSync(EXAMPLES).filter((name) => name !== "README.md").sort();
}

/** Copies an example into `dir` with its dependencies linked from this repository; returns the `-e` path. */
export function stageExample(name: string, dir: string): string {
  const target = join(dir, name);
  cpSync(join(EXAMPLES, name), target, { recursive: true });
  if (name.endsWith(".ts")) return target;
  const manifest = join(target, "package.json");
  if (existsSync(manifest)) {
    const deps = Object.keys(JSON.parse(readFileSync(manifest, "utf8")).dependencies ?? {});
    for (const dep of deps) {
      const installed = [join(ROOT, "node_modules", dep), join(FAKE_REGISTRY, dep)].find((path) => existsSync(path));
      if (!installed) continue;
      mkdirSync(join(target, "node_modules", dep, ".."), { recursive: true });
      symlinkSync(installed, join(target, "node_modules", dep));
    }
  }
  return target;
}

async function observe(agent: "pi" | "xcsh", name: string, server: FakeLlmServer): Promise<Observation> {
  const home = mkdtempSync(join(tmpdir(), `ex-${agent}-`));
  try {
    const agentDir = join(home, agent === "pi" ? ".pi/agent" : ".xcsh/agent");
    mkdirSync(agentDir, { recursive: true });
    const provider = { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "m" }] };
    writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { fake: provider } }));
    const cwd = join(home, "project");
    mkdirSync(cwd, { recursive: true });
    const entry = name ? stageExample(name, join(home, "ext")) : undefined;
    const env: Record<string, string> = { PATH: process.env.PATH!, HOME: home, PI_OFFLINE: "1", TERM: "dumb" };
    env[agent === "pi" ? "PI_CODING_AGENT_DIR" : "XCSH_CODING_AGENT_DIR"] = agentDir;
    const base = ["--provider", "fake", "--model", "m", ...(entry ? ["-e", entry] : [])];
    const command = (extra: string[]) => (agent === "pi" ? [process.execPath, PI_CLI, ...extra, ...base] : [join(ROOT, "dist/xcsh"), ...extra, ...base]);

    const help = Bun.spawnSync(command(["--help"]), { env, cwd, stdout: "pipe", stderr: "pipe" });
    const helpText = help.stdout.toString() + help.stderr.toString();
    // Only the flags extensions add: the section of --help after its "Extension CLI Flags:" line.
    const section = /Extension CLI Flags:\n([^]*?)(\n\s*\n|$)/.exec(helpText)?.[1] ?? "";
    const flags = [...section.matchAll(/^\s+(--[\w-]+)/gm)].map((match) => match[1]!).sort();

    const proc = Bun.spawn(command(["--mode", "rpc"]), { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
    const frames: Frame[] = [];
    let stderr = "";
    const waiters: { test: (frame: Frame) => boolean; done: (frame?: Frame) => void }[] = [];
    // A process that failed to start has closed its stdin; what it said is in stderr.
    const send = (frame: Frame) => {
      try {
        proc.stdin.write(JSON.stringify(frame) + "\n");
        void Promise.resolve(proc.stdin.flush()).catch(() => {});
      } catch {}
    };
    void (async () => {
      for await (const chunk of proc.stderr) stderr += new TextDecoder().decode(chunk);
    })();
    void (async () => {
      let buffer = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (!line.trim()) continue;
          let frame: Frame;
          try {
            frame = JSON.parse(line);
          } catch {
            frame = { type: "<not json>", line };
          }
          frames.push(frame);
          if (frame.type === "extension_ui_request" && ["select", "confirm", "input", "editor"].includes(frame.method)) {
            send({ type: "extension_ui_response", id: frame.id, cancelled: true });
          }
          for (const waiter of [...waiters]) if (waiter.test(frame)) waiters.splice(waiters.indexOf(waiter), 1), waiter.done(frame);
        }
      }
      for (const waiter of waiters.splice(0)) waiter.done();
    })();
    const waitFor = (test: (frame: Frame) => boolean, ms = 20_000) =>
      new Promise<Frame | undefined>((resolve) => {
        const seen = frames.find(test);
        if (seen) return resolve(seen);
        const timer = setTimeout(() => resolve(undefined), ms);
        waiters.push({ test, done: (frame) => (clearTimeout(timer), resolve(frame)) });
      });
    let next = 0;
    const request = (frame: Frame) => {
      const id = `r${++next}`;
      send({ ...frame, id });
      return waitFor((reply) => reply.type === "response" && reply.id === id);
    };
    await request({ type: "get_state" });
    const commands = ((await request({ type: "get_commands" }))?.data?.commands ?? [])
      .map((command: Frame) => (command.source === "extension" ? command.name : `${command.source}:${command.name}`))
      .sort();
    const before = server.requests.length;
    await request({ type: "prompt", message: "hi" });
    const ranTools: Record<string, string[]> = {};
    const ended = await waitFor((frame) => frame.type === "agent_end", 15_000);
    // pi says agent_settled after agent_end; a later wait must not take this run's.
    await waitFor((frame) => frame.type === "agent_settled", 5_000);
    const offered = server.requests.slice(before)[0]?.body?.tools ?? [];
    const tools = offered.map((tool: Frame) => tool.function?.name ?? tool.name).sort();
    const shown: Record<string, string[]> = {};
    if (runTools) {
      for (const tool of tools.filter((tool: string) => TOOL_CALLS[tool] && (!BUILT_IN_NAMES.includes(tool) || OVERRIDES.includes(name)))) {
        const mark = frames.length;
        server.enqueue({ content: [{ type: "toolCall", id: `call_${tool}`, name: tool, arguments: TOOL_CALLS[tool]! }] }, { content: [{ type: "text", text: "done" }] });
        await request({ type: "prompt", message: `use ${tool}` });
        await waitFor((frame) => frame.type === "agent_settled" && frames.indexOf(frame) >= mark, 15_000);
        ranTools[tool] = frames.slice(mark).flatMap((frame) => {
          if (frame.type === "tool_execution_end") return [`${frame.isError ? "error" : "result"}: ${JSON.stringify(frame.result?.content?.map((part: Frame) => part.text ?? part.type)).replace(/\/tmp\/[^\s"]+/g, "<tmp>").slice(0, 160)}`];
          if (frame.type === "extension_error") return [`extension_error ${frame.error}`];
          if (frame.type === "extension_ui_request" && ["select", "confirm", "input", "editor", "notify"].includes(frame.method)) return [`${frame.method} ${frame.title ?? frame.message}`.slice(0, 120)];
          return [];
        });
      }
    }
    if (runCommands) {
      // /quit ends the process: last.
      const own = commands.filter((name: string) => !name.includes(":") && !baselineCommands.has(name)).sort((a: string, b: string) => Number(a === "quit") - Number(b === "quit"));
      for (const name of own) {
        const mark = frames.length;
        const reply = await request({ type: "prompt", message: `/${name}` });
        await Bun.sleep(300);
        if (frames.slice(mark).some((frame) => frame.type === "agent_start")) await waitFor((frame) => frame.type === "agent_settled" && frames.indexOf(frame) >= mark, 10_000);
        shown[name] = [
          reply ? (reply.success ? "ok" : `failed: ${reply.error}`) : "no response",
          ...frames.slice(mark).flatMap((frame) => {
            if (frame.type === "extension_error") return [`extension_error ${frame.error}`];
            if (frame.type !== "extension_ui_request") return [];
            const text = [frame.title, frame.message, frame.statusKey, frame.statusText, frame.widgetKey, frame.text, Array.isArray(frame.options) ? frame.options.join("|") : undefined].filter((part) => part !== undefined);
            return [`${frame.method} ${text.join(" / ")}`.replace(/\/tmp\/[^\s"]+/g, "<tmp>").slice(0, 140)];
          }),
        ];
      }
    }
    const exitedEarly = proc.exitCode !== null ? `exited ${proc.exitCode} before stdin closed` : "";
    try {
      proc.stdin.end();
    } catch {}
    const exited = await Promise.race([proc.exited, Bun.sleep(5_000).then(() => "timeout")]);
    if (exited === "timeout") proc.kill("SIGKILL");
    const errors = [
      ...(exitedEarly ? [exitedEarly] : []),
      ...frames.filter((frame) => frame.type === "extension_error").map((frame) => `extension_error: ${frame.error ?? frame.message}`),
      ...stderr.split("\n").filter((line) => /error|failed|cannot|not found/i.test(line)).map((line) => `stderr: ${line.trim()}`),
    ];
    return { errors, commands, tools, flags, prompted: ended !== undefined, shown: { ...shown, ...Object.fromEntries(Object.entries(ranTools).map(([tool, lines]) => [`tool ${tool}`, lines])) } };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const short = (items: string[]) => (items.length ? items.join(",") : "-");

if (import.meta.main) {
  const names = chosen.length ? chosen : exampleNames();
  const server = startFakeLlm();
  // What each agent lists with no example loaded (pi's bundled extensions add commands) is left out.
  const baseline = { pi: await observe("pi", "", server), xcsh: await observe("xcsh", "", server) };
  const own = (o: Observation, agent: "pi" | "xcsh"): Observation => ({ ...o, commands: o.commands.filter((c) => !baseline[agent].commands.includes(c)) });
  const results: Record<string, { pi: Observation; xcsh: Observation }> = {};
  console.log("| example | same? | pi errors | xcsh errors | commands pi / xcsh | tools pi / xcsh | flags pi / xcsh |");
  console.log("|---|---|---|---|---|---|---|");
  for (const name of names) {
    const pi = own(await observe("pi", name, server), "pi");
    const xcsh = own(await observe("xcsh", name, server), "xcsh");
    results[name] = { pi, xcsh };
    const same =
      short(pi.commands) === short(xcsh.commands) &&
      short(pi.tools) === short(xcsh.tools) &&
      short(pi.flags) === short(xcsh.flags) &&
      (pi.errors.length === 0) === (xcsh.errors.length === 0) &&
      pi.prompted === xcsh.prompted;
    console.log(
      `| ${name} | ${same ? "yes" : "NO"} | ${pi.errors.join("; ").slice(0, 160) || "-"} | ${xcsh.errors.join("; ").slice(0, 160) || "-"} | ${short(pi.commands)} / ${short(xcsh.commands)} | ${short(pi.tools)} / ${short(xcsh.tools)} | ${short(pi.flags)} / ${short(xcsh.flags)}${pi.prompted === xcsh.prompted ? "" : ` prompted pi=${pi.prompted} xcsh=${xcsh.prompted}`} |`,
    );
  }
  if (runCommands || runTools) {
    console.log("\ncommands run bare (and tools called once), where pi and xcsh showed different things:");
    for (const [name, { pi, xcsh }] of Object.entries(results)) {
      for (const command of Object.keys({ ...pi.shown, ...xcsh.shown })) {
        const a = JSON.stringify(pi.shown[command] ?? []);
        const b = JSON.stringify(xcsh.shown[command] ?? []);
        if (a !== b) console.log(`${name} ${command.startsWith("tool ") ? command : `/${command}`}\n  pi:   ${a}\n  xcsh: ${b}`);
      }
    }
  }
  if (jsonOut) writeFileSync(jsonOut, JSON.stringify(results, null, 2));
  await server.close();
}
