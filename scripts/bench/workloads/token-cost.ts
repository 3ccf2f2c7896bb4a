/**
 * What a coding session costs: one scripted session — six prompts, read/bash/edit/
 * write calls on a real npm package (semver, copied from node_modules into a fresh
 * project), a `compact` between the fourth and fifth prompt (both agents keep 8,000 recent tokens) — run by each agent over
 * RPC against the fake LLM server. The server answers every request from the same
 * script (the same tool calls and texts for every agent) and reports usage from a
 * simulation of the provider's prompt cache (../prompt-cache.ts) on a simulated
 * clock: 8 s per request, and 30 s (normal pace) or 400 s (slow pace, past the
 * 5-minute TTL) between prompts. Nothing sleeps.
 *
 * Reported per API and pace: prompt tokens, cache reads, cache writes, uncached
 * input, hit rate and list-price cost. Tokens are counted by one rule for both
 * agents: 4 characters of each block's JSON to a token.
 *
 * The reference is pi 1.6.0 from node_modules/pi-coding-agent-160 (run with bun,
 * PI_OFFLINE=1) unless XCSH_BENCH_TOKEN_REFERENCE names another executable; it runs
 * at its default settings, as does xcsh.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isEvent, isResponse, RpcProcess } from "../rpc-process.ts";
import { costOf, countTokens, PromptCache, type CacheUsage } from "../prompt-cache.ts";
import type { FakeApi, FakeBlock, FakeResponse, RecordedRequest } from "../../../test/support/fake-llm/script.ts";
import type { BenchContext, ResultRow, Workload } from "../types.ts";

const ROOT = join(import.meta.dir, "..", "..", "..");
const PACKAGE = join(ROOT, "node_modules", "semver");
const PI_160 = join(ROOT, "node_modules", "pi-coding-agent-160", "dist", "bundle", "cli.js");
const SECONDS_PER_REQUEST = 8;

export type Step = FakeBlock[];
export interface Task {
  /** A tag unique to this prompt, so the server knows which prompt a request continues. */
  tag: string;
  prompt: string;
  steps: Step[];
}

export const call = (name: string, args: Record<string, unknown>): Step => [{ type: "toolCall", name, arguments: args }];
export const say = (text: string): Step => [{ type: "text", text }];

/** The session: what the user asks and what the scripted model does. */
export const TASKS: Task[] = [
  {
    tag: "[task 1]",
    prompt: "[task 1] Read the README and package.json of this package and tell me what it does and how to bump a version.",
    steps: [
      call("read", { path: "README.md" }),
      call("read", { path: "package.json" }),
      call("bash", { command: "ls -la && ls functions classes" }),
      say("This is semver, npm's semantic-version parser. `semver.inc(version, release)` bumps a version: inc('1.2.3', 'minor') gives 1.3.0."),
    ],
  },
  {
    tag: "[task 2]",
    prompt: "[task 2] How is inc implemented? Find it and check it with node.",
    steps: [
      call("bash", { command: "grep -rn \"inc\" index.js | head -5" }),
      call("read", { path: "functions/inc.js" }),
      call("read", { path: "classes/semver.js" }),
      call("bash", { command: "node -e \"console.log(require('./functions/inc')('1.2.3', 'minor'))\"" }),
      say("functions/inc.js builds a SemVer and calls its inc(); classes/semver.js does the work. node prints 1.3.0."),
    ],
  },
  {
    tag: "[task 3]",
    prompt: "[task 3] And how does satisfies() decide whether 1.2.5 matches ^1.2.0?",
    steps: [
      call("read", { path: "functions/satisfies.js" }),
      call("read", { path: "classes/range.js" }),
      call("read", { path: "classes/comparator.js" }),
      call("bash", { command: "node -e \"console.log(require('./functions/satisfies')('1.2.5', '^1.2.0'))\"" }),
      say("satisfies() builds a Range; ^1.2.0 becomes >=1.2.0 <2.0.0-0 and each Comparator tests the version. node prints true."),
    ],
  },
  {
    tag: "[task 4]",
    prompt: "[task 4] Add a bumpMinor(version) helper to functions/inc.js, exported beside inc, and test it.",
    steps: [
      call("edit", {
        path: "functions/inc.js",
        edits: [{ oldText: "module.exports = inc\n", newText: "module.exports = inc\nmodule.exports.bumpMinor = (version) => inc(version, 'minor')\n" }],
      }),
      call("bash", { command: "node -e \"console.log(require('./functions/inc').bumpMinor('2.4.1'))\"" }),
      call("read", { path: "functions/inc.js" }),
      say("Added bumpMinor to functions/inc.js; bumpMinor('2.4.1') prints 2.5.0."),
    ],
  },
  {
    tag: "[task 5]",
    prompt: "[task 5] Write NOTES.md describing the new helper, with a usage example, and show it.",
    steps: [
      call("read", { path: "functions/inc.js" }),
      call("write", {
        path: "NOTES.md",
        content: "# bumpMinor\n\n`require('./functions/inc').bumpMinor(version)` returns the next minor version.\n\n```js\nbumpMinor('2.4.1') // '2.5.0'\n```\n",
      }),
      call("bash", { command: "cat NOTES.md" }),
      say("NOTES.md describes bumpMinor with an example."),
    ],
  },
  {
    tag: "[task 6]",
    prompt: "[task 6] Final check: run the helper once more, list the files I changed and print the package version.",
    steps: [
      call("bash", { command: "node -e \"console.log(require('./functions/inc').bumpMinor('0.9.9'))\"" }),
      call("bash", { command: "ls -la NOTES.md functions/inc.js && node -p \"require('./package.json').version\"" }),
      say("bumpMinor('0.9.9') gives 0.10.0. Changed: functions/inc.js (bumpMinor) and NOTES.md (new). Package version 7.8.5."),
    ],
  },
];
/** The session runs `compact` after this many prompts. */
const COMPACT_AFTER = 4;
/** Both agents keep this many recent tokens at a compaction (their settings.json), so the session is long enough to cut. */
const KEEP_RECENT_TOKENS = 8000;
const SUMMARY =
  "## Goal\nUnderstand semver's inc and add a bumpMinor helper.\n\n## Progress\n- Read README.md and package.json: semver is npm's version parser; inc bumps versions.\n- functions/inc.js wraps SemVer.inc; bumpMinor(version) was added there and prints 2.5.0 for 2.4.1.\n\n## Next\nDocument the helper.";

const TOOL_RESULT_MARKERS: Record<FakeApi, string> = {
  "anthropic-messages": '"type":"tool_result"',
  "openai-responses": '"type":"function_call_output"',
  "openai-completions": '"role":"tool"',
  "google-generative-ai": '"functionResponse"',
};

function occurrences(text: string, marker: string, from: number): number {
  let count = 0;
  for (let at = text.indexOf(marker, from); at !== -1; at = text.indexOf(marker, at + marker.length)) count++;
  return count;
}

/** What one scripted session does: the prompts, the project it runs in, and how to tell it did its work. */
export interface Scenario {
  tasks: Task[];
  /** Copies or writes the project the agents work in. */
  makeProject(project: string): void;
  /** Throws when the session's edits did not land. */
  verify(project: string): void;
  /** The session runs `compact` after this many prompts (never when undefined). */
  compactAfter?: number;
  /** Extra command-line arguments for both agents (e.g. the tools to turn on). */
  args?: string[];
  /** Called with every request body, to break it down (a diagnostic of the caller's). */
  onRequest?(runner: string, body: any): void;
}

const SEMVER_SCENARIO: Scenario = {
  tasks: TASKS,
  makeProject: (project) => cpSync(PACKAGE, project, { recursive: true }),
  verify(project) {
    // The script's edit and write must have landed: the session did what it was asked.
    const helper = readFileSync(join(project, "functions", "inc.js"), "utf8");
    if (!helper.includes("bumpMinor") || !existsSync(join(project, "NOTES.md"))) throw new Error("the session's edit or write did not land");
  },
  compactAfter: COMPACT_AFTER,
};

export interface Served {
  /** "summary" or "<task>/<step>" for each request, in order. */
  steps: string[];
  usage: CacheUsage & { output: number; cost: number };
  requests: number;
  /** Prompt tokens of the first request after the compaction. */
  firstAfterCompaction: number;
}

/** The server's answer to one request: the script's next step for that prompt, with the simulated cache's usage. */
function responder(tasks: Task[], cache: PromptCache, clock: { now: number }, served: Served, state: { compacted: boolean; afterCompaction: boolean; label: string }) {
  return (request: RecordedRequest): FakeResponse => {
    clock.now += SECONDS_PER_REQUEST;
    const text = JSON.stringify(request.body);
    const hasTools = (request.body?.tools?.length ?? 0) > 0;
    let content: FakeBlock[];
    if (!hasTools) {
      content = [{ type: "text", text: SUMMARY }];
      served.steps.push("summary");
    } else {
      let task = tasks[0]!;
      let at = -1;
      for (const candidate of tasks) {
        const position = text.lastIndexOf(candidate.tag);
        if (position > at) [task, at] = [candidate, position];
      }
      // A step with several tool calls (run in parallel) is answered by as many results.
      const results = occurrences(text, TOOL_RESULT_MARKERS[request.api], at);
      let step = 0;
      for (let answered = 0; step < task.steps.length - 1; step++) {
        const calls = task.steps[step]!.filter((block) => block.type === "toolCall").length;
        if (answered + calls > results) break;
        answered += calls;
      }
      content = task.steps[step]!;
      served.steps.push(`${task.tag}/${step}`);
    }
    const usage = cache.account(request.body, clock.now);
    const prompt = usage.input + usage.cacheRead + usage.cacheWrite + usage.cacheWriteLong;
    if (hasTools && state.afterCompaction) {
      served.firstAfterCompaction = prompt;
      state.afterCompaction = false;
    }
    const output = countTokens(JSON.stringify(content));
    if (process.env.XCSH_BENCH_TOKENS_DUMP) {
      // Every request body, numbered in order, to compare what the agents send (a diagnostic; changes no figure).
      const folder = join(process.env.XCSH_BENCH_TOKENS_DUMP, state.label);
      mkdirSync(folder, { recursive: true });
      writeFileSync(join(folder, `${String(served.requests).padStart(2, "0")}-${served.steps.at(-1)!.replace(/[^\w]+/g, "-")}.json`), JSON.stringify(request.body, null, 2));
    }
    if (process.env.XCSH_BENCH_TOKENS_TRACE) {
      console.error(`    ${served.steps.at(-1)} t=${clock.now}s prompt ${prompt} read ${usage.cacheRead} write ${usage.cacheWrite + usage.cacheWriteLong} input ${usage.input}`);
    }
    served.requests++;
    served.usage.input += usage.input;
    served.usage.cacheRead += usage.cacheRead;
    served.usage.cacheWrite += usage.cacheWrite;
    served.usage.cacheWriteLong += usage.cacheWriteLong;
    served.usage.output += output;
    served.usage.cost += costOf(usage, output);
    return {
      content,
      usage: { input: usage.input, output, cacheRead: usage.cacheRead, cacheWrite: usage.cacheWrite + usage.cacheWriteLong },
    };
  };
}

export interface Runner {
  label: string;
  command: string[];
  configVariable: string;
  env?: Record<string, string>;
}

export function runners(context: BenchContext): Runner[] {
  const xcsh = context.agents[0]!;
  const list: Runner[] = [{ label: xcsh.label, command: xcsh.command, configVariable: "XCSH_CODING_AGENT_DIR" }];
  const reference = process.env.XCSH_BENCH_TOKEN_REFERENCE;
  if (reference) list.push({ label: "reference", command: [reference], configVariable: "PI_CODING_AGENT_DIR", env: { PI_OFFLINE: "1" } });
  else if (existsSync(PI_160)) list.push({ label: "pi 1.6.0", command: ["bun", PI_160], configVariable: "PI_CODING_AGENT_DIR", env: { PI_OFFLINE: "1" } });
  return list;
}

export const MODEL_IDS: Record<FakeApi, string> = {
  "anthropic-messages": "claude-sonnet-4-5",
  "openai-responses": "gpt-5.1",
  "openai-completions": "gpt-5.1",
  "google-generative-ai": "gemini-2.5-pro",
};

/** One agent, one API, one pace: the whole session in a fresh home and project. */
export async function runSession(context: BenchContext, runner: Runner, api: FakeApi, gapSeconds: number, scenario: Scenario = SEMVER_SCENARIO): Promise<Served> {
  const home = mkdtempSync(join(context.fixtures, "token-cost-"));
  const config = join(home, "config");
  const project = join(home, "project");
  mkdirSync(config, { recursive: true });
  scenario.makeProject(project);
  writeFileSync(join(config, "settings.json"), JSON.stringify({ compaction: { keepRecentTokens: KEEP_RECENT_TOKENS } }));
  writeFileSync(
    join(config, "models.json"),
    JSON.stringify({
      providers: {
        sim: {
          baseUrl: context.server.baseUrl(api),
          api,
          apiKey: "bench-key",
          models: [
            {
              id: MODEL_IDS[api],
              contextWindow: 200_000,
              maxTokens: 16_000,
              cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
              // The simulated OpenAI takes prompt_cache_retention: "24h", as api.openai.com does (pi assumes it by default).
              ...(api.startsWith("openai") ? { compat: { supportsLongCacheRetention: true } } : {}),
            },
          ],
        },
      },
    }),
  );
  const cache = new PromptCache(api);
  const clock = { now: 0 };
  const served: Served = { steps: [], usage: { input: 0, cacheRead: 0, cacheWrite: 0, cacheWriteLong: 0, output: 0, cost: 0 }, requests: 0, firstAfterCompaction: Number.NaN };
  const state = { compacted: false, afterCompaction: false, label: `${runner.label}-${api}-${gapSeconds}s`.replace(/[^\w.-]+/g, "_") };
  const env: Record<string, string> = {
    HOME: home,
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    [runner.configVariable]: config,
    ...runner.env,
  };
  if (process.env.TMPDIR) env.TMPDIR = process.env.TMPDIR;
  const rpc = new RpcProcess([...runner.command, "--mode", "rpc", "--model", `sim/${MODEL_IDS[api]}`, ...(scenario.args ?? [])], { env, cwd: project, killAfterMs: 10 * 60_000 });
  context.server.clearScript();
  const respond = responder(scenario.tasks, cache, clock, served, state);
  const answer = (request: RecordedRequest): FakeResponse => {
    scenario.onRequest?.(runner.label, request.body);
    return respond(request);
  };
  try {
    rpc.send({ id: "ready", type: "get_state" });
    await rpc.waitFor(isResponse("get_state"), 60_000);
    let settled = 0;
    for (const [index, task] of scenario.tasks.entries()) {
      clock.now += gapSeconds;
      context.server.enqueue(...Array.from({ length: task.steps.length + 2 }, () => answer));
      rpc.send({ type: "prompt", message: task.prompt });
      // pi 1.6.0 ends a run with agent_end; xcsh adds agent_settled after it. Count agent_end.
      const target = ++settled;
      await rpc.waitFor((frame) => isEvent("agent_end")(frame) && rpc.frames.filter(isEvent("agent_end")).length >= target, 120_000);
      context.server.clearScript();
      if (index + 1 === scenario.compactAfter) {
        clock.now += gapSeconds;
        context.server.enqueue(answer, answer);
        state.afterCompaction = true;
        rpc.send({ id: `compact-${index}`, type: "compact" });
        await rpc.waitFor(isResponse("compact"), 120_000);
        context.server.clearScript();
      }
    }
    rpc.closeStdin();
    await Promise.race([rpc.exited, Bun.sleep(10_000)]);
    scenario.verify(project);
    return served;
  } finally {
    rpc.kill();
    context.server.clearScript();
    rmSync(home, { recursive: true, force: true });
  }
}

const PACES = [
  { name: "normal pace (30 s between prompts)", gap: 30 },
  { name: "slow pace (400 s between prompts)", gap: 400 },
];
const APIS: { api: FakeApi; name: string; paces: number[] }[] = [
  { api: "anthropic-messages", name: "Anthropic Messages", paces: [30, 400] },
  { api: "openai-responses", name: "OpenAI Responses", paces: [30, 400] },
  { api: "openai-completions", name: "OpenAI Chat Completions", paces: [30] },
  { api: "google-generative-ai", name: "Gemini", paces: [30] },
];
/** xcsh's cost may be at most this share of the reference's (issue #36). */
export const TOKEN_COST_BUDGET = 0.8;

export const tokenCost: Workload = {
  name: "Token cost of a scripted session (simulated prompt caches)",
  id: "tokens",
  runs: 1,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const list = runners(context);
    const rows: ResultRow[] = [];
    const workload = this.name;
    // XCSH_BENCH_TOKENS_ONLY=anthropic-messages:30 runs one API and pace (a diagnostic; the report wants them all).
    const only = process.env.XCSH_BENCH_TOKENS_ONLY;
    for (const { api, name, paces } of APIS) {
      for (const gap of paces) {
        if (only && only !== `${api}:${gap}`) continue;
        const pace = PACES.find((p) => p.gap === gap)!.name;
        const results = new Map<string, Served>();
        const notes: Record<string, string> = {};
        for (const runner of list) {
          try {
            const served = await runSession(context, runner, api, gap);
            results.set(runner.label, served);
            context.log(`  ${runner.label} ${name}, ${pace}: ${served.requests} requests, $${served.usage.cost.toFixed(4)}`);
          } catch (error) {
            notes[runner.label] = (error as Error).message.split("\n")[0]!.slice(0, 200);
            context.log(`  ${runner.label} ${name}, ${pace} failed: ${notes[runner.label]}`);
          }
        }
        // Every agent must have been served the same script steps, in the same order: the same answers reached the user.
        const reference = list[1] ? results.get(list[1].label) : undefined;
        if (reference && results.has(list[0]!.label) && results.get(list[0]!.label)!.steps.join() !== reference.steps.join()) {
          notes[list[0]!.label] = `served other script steps than ${list[1]!.label}: ${results.get(list[0]!.label)!.steps.join(" ")}`;
          context.log(`  ${notes[list[0]!.label]}`);
        }
        const pick = (f: (s: Served) => number) => Object.fromEntries(list.map((r) => [r.label, results.has(r.label) ? f(results.get(r.label)!) : Number.NaN]));
        const prompt = (s: Served) => s.usage.input + s.usage.cacheRead + s.usage.cacheWrite + s.usage.cacheWriteLong;
        const metric = (what: string) => `${name}, ${pace}: ${what}`;
        const ours = results.get(list[0]!.label);
        const theirs = list[1] ? results.get(list[1].label) : undefined;
        const ratio = ours && theirs ? ours.usage.cost / theirs.usage.cost : Number.NaN;
        rows.push(
          { workload, metric: metric("requests"), kind: "count", values: pick((s) => s.requests), notes },
          { workload, metric: metric("prompt tokens"), kind: "count", values: pick(prompt), notes },
          { workload, metric: metric("cache read"), kind: "count", values: pick((s) => s.usage.cacheRead), notes },
          { workload, metric: metric("cache write"), kind: "count", values: pick((s) => s.usage.cacheWrite + s.usage.cacheWriteLong), notes },
          { workload, metric: metric("uncached input"), kind: "count", values: pick((s) => s.usage.input), notes },
          { workload, metric: metric("cache hit %"), kind: "count", values: pick((s) => Math.round((1000 * s.usage.cacheRead) / prompt(s)) / 10), notes },
          { workload, metric: metric("first request after compact (tokens)"), kind: "count", values: pick((s) => s.firstAfterCompaction), notes },
          {
            workload,
            metric: metric("cost (micro-dollars)"),
            kind: "count",
            values: pick((s) => Math.round(s.usage.cost * 1_000_000)),
            notes,
            ...(api === "anthropic-messages" || api === "openai-responses"
              ? { budget: { text: `≤ ${TOKEN_COST_BUDGET}× ${list[1]?.label ?? "reference"} (${ratio.toFixed(2)}×)`, met: ratio <= TOKEN_COST_BUDGET } }
              : {}),
          },
        );
      }
    }
    return rows;
  },
};
