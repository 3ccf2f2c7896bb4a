/**
 * Drives pi (1.6.0 or 0.87.1, the devDependencies) and the built xcsh through the same
 * `--mode rpc` scenario against the fake LLM server, and prints where their frames and
 * session files differ: a prompt with bash and read calls and a thinking answer, an abort,
 * a compact, get_messages / get_state / get_session_stats, then the session resumed and
 * prompted again. Run `bun run build` first.
 *
 *   bun scripts/pi-side-by-side.ts [pi160|pi087] [--keep-recent N] [--out DIR]
 *
 * Values that differ on every run (ids, timestamps, durations, paths, ports) are masked;
 * streaming deltas and pi's system-prompt message are left out. xcsh runs with
 * `--rpc-wire pi` so message_update frames compare. Output: one line per differing field,
 * `frame-kind path | pi=… | xcsh=…`, first of each kind only; the raw frames, session files
 * and recorded requests are written to DIR (default a temp folder) for a closer look.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startFakeLlm } from "../test/support/fake-llm/server.ts";

type Frame = Record<string, any>;
const ROOT = join(import.meta.dir, "..");
const option = (name: string) => {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
};
const reference = process.argv[2] === "pi087" ? "pi087" : "pi160";
const keepRecent = option("--keep-recent");
const outDir = option("--out") ?? mkdtempSync(join(tmpdir(), "pi-side-by-side-"));
const PI_CLI = {
  pi160: join(ROOT, "node_modules/pi-coding-agent-160/dist/bundle/cli.js"),
  pi087: join(ROOT, "node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"),
};

/** Runs the scenario against one agent; returns its frames (two processes) and session file text. */
async function runScenario(agent: "pi" | "xcsh"): Promise<{ frames: Frame[][]; sessions: string[]; requests: unknown[] }> {
  const server = startFakeLlm();
  const home = mkdtempSync(join(tmpdir(), `side-${agent}-`));
  const agentDir = join(home, agent === "pi" ? ".pi/agent" : ".xcsh/agent");
  mkdirSync(agentDir, { recursive: true });
  const provider = { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "m", reasoning: true }] };
  writeFileSync(join(agentDir, "models.json"), JSON.stringify({ providers: { fake: provider } }));
  if (keepRecent) writeFileSync(join(agentDir, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: Number(keepRecent) } }));
  const cwd = join(home, "project");
  mkdirSync(cwd, { recursive: true });
  writeFileSync(join(cwd, "a.txt"), "line one\nline two\n");
  const env: Record<string, string> = { PATH: process.env.PATH!, HOME: home, PI_OFFLINE: "1", TERM: "dumb" };
  env[agent === "pi" ? "PI_CODING_AGENT_DIR" : "XCSH_CODING_AGENT_DIR"] = agentDir;

  const start = (extra: string[]) => {
    const base = ["--mode", "rpc", "--provider", "fake", "--model", "m", ...extra];
    const command = agent === "pi" ? [process.execPath, PI_CLI[reference], ...base] : [join(ROOT, "dist/xcsh"), ...base, "--rpc-wire", "pi"];
    const proc = Bun.spawn(command, { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    const frames: Frame[] = [];
    const waiters: { test: (frame: Frame) => boolean; done: (frame: Frame) => void }[] = [];
    void (async () => {
      let buffer = "";
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let newline = buffer.indexOf("\n"); newline >= 0; newline = buffer.indexOf("\n")) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          if (!line.trim()) continue;
          const frame = JSON.parse(line) as Frame;
          frames.push(frame);
          for (const waiter of [...waiters]) if (waiter.test(frame)) waiters.splice(waiters.indexOf(waiter), 1), waiter.done(frame);
        }
      }
    })();
    const waitFor = (test: (frame: Frame) => boolean, from = 0) => {
      const seen = frames.slice(from).find(test);
      if (seen) return Promise.resolve(seen);
      return new Promise<Frame>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${agent}: timed out; last frames ${JSON.stringify(frames.slice(-3))}`)), 30_000);
        waiters.push({ test, done: (frame) => (clearTimeout(timer), resolve(frame)) });
      });
    };
    let next = 0;
    const request = (command: Frame) => {
      const id = `r${++next}`;
      proc.stdin.write(JSON.stringify({ ...command, id }) + "\n");
      void proc.stdin.flush();
      return waitFor((frame) => frame.type === "response" && frame.id === id);
    };
    return { frames, request, waitFor, close: async () => (proc.stdin.end(), await proc.exited) };
  };

  const first = start([]);
  await first.request({ type: "get_state" });
  server.enqueue(
    { content: [{ type: "text", text: "Let me look." }, { type: "toolCall", name: "bash", arguments: { command: "echo hi" } }], usage: { input: 100, output: 20 } },
    { content: [{ type: "toolCall", name: "read", arguments: { path: "a.txt" } }] },
    { content: [{ type: "thinking", thinking: "Done thinking" }, { type: "text", text: "All done." }] },
  );
  let mark = first.frames.length;
  await first.request({ type: "prompt", message: "hello" });
  await first.waitFor((frame) => frame.type === "agent_settled", mark);
  server.enqueue({ content: [{ type: "text", text: "slow" }], delayMs: 5_000 });
  mark = first.frames.length;
  await first.request({ type: "prompt", message: "slow one" });
  await first.waitFor((frame) => frame.type === "agent_start", mark);
  await Bun.sleep(300);
  await first.request({ type: "abort" });
  await first.waitFor((frame) => frame.type === "agent_settled", mark);
  server.enqueue({ content: [{ type: "text", text: "SUMMARY" }] });
  await first.request({ type: "compact" });
  await first.request({ type: "get_messages" });
  const state = await first.request({ type: "get_state" });
  await first.request({ type: "get_session_stats" });
  await first.close();
  const sessionFile = state.data.sessionFile as string;
  const sessions = [readFileSync(sessionFile, "utf8")];

  const resumed = start(["--session", sessionFile]);
  await resumed.request({ type: "get_state" });
  await resumed.request({ type: "get_messages" });
  server.enqueue({ content: [{ type: "text", text: "Again." }] });
  await resumed.request({ type: "prompt", message: "again" });
  await resumed.waitFor((frame) => frame.type === "agent_settled");
  await resumed.close();
  sessions.push(readFileSync(sessionFile, "utf8"));
  const requests = server.requests.map((recorded) => recorded.body);
  await server.close();
  return { frames: [first.frames, resumed.frames], sessions, requests };
}

const STREAMED = new Set(["text_delta", "thinking_delta", "toolcall_delta"]);
const kindOf = (frame: Frame) => [frame.type, frame.command ?? frame.assistantMessageEvent?.type ?? frame.message?.role ?? ""].join(":");
const VOLATILE = /timestamp|\.id$|Id$|durationMs|wall_time_seconds|sessionFile|sessionId|parentId|\.cwd$|baseUrl|sections|toolsAdded/;

function leaves(value: unknown, path = "", out = new Map<string, unknown>()): Map<string, unknown> {
  if (Array.isArray(value)) value.forEach((item, index) => leaves(item, `${path}[${index}]`, out));
  else if (value && typeof value === "object") for (const [key, item] of Object.entries(value)) leaves(item, `${path}.${key}`, out);
  else out.set(path, VOLATILE.test(path) || (typeof value === "string" && value.includes(tmpdir())) ? "<varies>" : value);
  return out;
}

/** Pairs the frames of the two runs by kind, in order, and prints the fields that differ. */
function compare(label: string, piFrames: Frame[], xcshFrames: Frame[]): void {
  const keep = (frame: Frame) => !STREAMED.has(frame.assistantMessageEvent?.type) && frame.message?.role !== "system";
  const left = piFrames.filter(keep);
  const right = xcshFrames.filter(keep);
  const seen = new Set<string>();
  const used = new Set<number>();
  for (const frame of left) {
    const kind = kindOf(frame);
    const index = right.findIndex((other, at) => !used.has(at) && kindOf(other) === kind);
    if (index === -1) {
      console.log(`${label} only pi: ${kind}`);
      continue;
    }
    used.add(index);
    const a = leaves(frame);
    const b = leaves(right[index]);
    for (const path of new Set([...a.keys(), ...b.keys()])) {
      if (path.startsWith(".messages[") || path.startsWith(".data.messages[")) continue;
      const [x, y] = [a.get(path), b.get(path)];
      if (x === y) continue;
      const line = `${label} ${kind} ${path.replace(/\[\d+\]/g, "[]")} | pi=${JSON.stringify(x ?? "<missing>").slice(0, 90)} | xcsh=${JSON.stringify(y ?? "<missing>").slice(0, 90)}`;
      if (!seen.has(line)) console.log(line), seen.add(line);
    }
  }
  right.forEach((frame, index) => used.has(index) || console.log(`${label} only xcsh: ${kindOf(frame)}`));
}

const pi = await runScenario("pi");
const xcsh = await runScenario("xcsh");
for (const [name, run] of [["pi", pi], ["xcsh", xcsh]] as const) {
  run.frames.forEach((frames, index) => writeFileSync(join(outDir, `${name}-frames${index + 1}.jsonl`), frames.map((frame) => JSON.stringify(frame)).join("\n") + "\n"));
  run.sessions.forEach((text, index) => writeFileSync(join(outDir, `${name}-session${index + 1}.jsonl`), text));
  writeFileSync(join(outDir, `${name}-requests.json`), JSON.stringify(run.requests, null, 2));
}
compare("run", pi.frames[0]!, xcsh.frames[0]!);
compare("resumed", pi.frames[1]!, xcsh.frames[1]!);
const entries = (text: string) => text.split("\n").filter(Boolean).map((line) => JSON.parse(line) as Frame);
const entryKind = (entry: Frame) => `${entry.type}${entry.message ? `:${entry.message.role}` : ""}`;
console.log(`session pi:   ${entries(pi.sessions[1]!).map(entryKind).join(" ")}`);
console.log(`session xcsh: ${entries(xcsh.sessions[1]!).map(entryKind).join(" ")}`);
console.log(`(${reference} vs xcsh; frames, sessions and requests in ${outDir})`);
