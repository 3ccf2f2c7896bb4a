/**
 * Where a real session's prompt tokens go: one scripted session on a real source tree
 * (typebox's published build, copied from node_modules into a fresh git repository),
 * doing what a model does — ls -R, find, grep, reading files (one of them twice), a
 * failing `bun test` run twice, a fix, `git log`, a `git clone --progress` whose
 * progress lines overwrite each other with carriage returns, and a long loop of reads
 * and greps — run by each agent over RPC against the fake LLM server (Anthropic
 * Messages, normal pace, on the simulated cache of ../prompt-cache.ts).
 *
 * Besides the totals it breaks every request down by what its tokens carry (system
 * prompt, tool definitions, the user's prompts, the model's text and calls, each
 * tool's results, and results repeating an earlier one word for word), summed over
 * the session's requests: what the session paid to send each kind.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { countTokens } from "../prompt-cache.ts";
import type { BenchContext, ResultRow, Workload } from "../types.ts";
import { call, runners, runSession, say, type Scenario, type Served, type Task } from "./token-cost.ts";

const ROOT = join(import.meta.dir, "..", "..", "..");
const TYPEBOX = join(ROOT, "node_modules", "typebox");

const TEST_FILE = `import { expect, test } from "bun:test";
import { Compile } from "../build/compile/index.mjs";
import Type from "../build/index.mjs";

test("a compiled validator checks an object", () => {
  const validator = Compile(Type.Object({ x: Type.Number(), name: Type.String() }));
  expect(validator.Check({ x: 1, name: "a" })).toBe(true);
  expect([...validator.Errors({ x: "1", name: 2 })]).toEqual([]);
});
`;

export const REAL_TASKS: Task[] = [
  {
    tag: "[real 1]",
    prompt: "[real 1] Where does typebox compile a schema into a validator, and how does Check work?",
    steps: [
      call("bash", { command: "ls -R build | head -400" }),
      call("find", { pattern: "**/compile/*.mjs" }),
      call("grep", { pattern: "export function Compile", path: "build" }),
      call("read", { path: "build/compile/compile.mjs" }),
      call("grep", { pattern: "Check", path: "build/compile" }),
      call("read", { path: "build/compile/validator.mjs" }),
      call("read", { path: "build/compile/compile.mjs" }),
      say("build/compile/compile.mjs builds a Validator; validator.mjs's Check runs the generated code."),
    ],
  },
  {
    tag: "[real 2]",
    prompt: "[real 2] Write a bun test for Compile in test/compile.test.ts and make it pass.",
    steps: [
      call("write", { path: "test/compile.test.ts", content: TEST_FILE }),
      call("bash", { command: "bun test test/compile.test.ts 2>&1" }),
      call("bash", { command: "bun test test/compile.test.ts 2>&1 | tail -40" }),
      call("edit", {
        path: "test/compile.test.ts",
        edits: [{ oldText: "toEqual([])", newText: "toHaveLength(2)" }],
      }),
      call("bash", { command: "bun test test/compile.test.ts 2>&1" }),
      say("test/compile.test.ts passes: Check accepts the object and Errors lists two errors for the bad one."),
    ],
  },
  {
    tag: "[real 3]",
    prompt: "[real 3] Show the history, then clone the repository to ../mirror to check it is complete.",
    steps: [
      call("bash", { command: "git log --stat | head -30" }),
      call("bash", { command: "git clone --progress --no-local . ../mirror 2>&1" }),
      call("ls", { path: "../mirror" }),
      say("One commit; the clone in ../mirror has build/, package.json and readme.md."),
    ],
  },
  {
    tag: "[real 4]",
    prompt: "[real 4] How does Value.Check differ from the compiled one? Look through build/value.",
    steps: [
      call("ls", { path: "build/value" }),
      call("find", { pattern: "*.mjs", path: "build/value/check" }),
      call("read", { path: "build/value/check/check.mjs" }),
      call("grep", { pattern: "function Check", path: "build" }),
      call("read", { path: "build/value/value.mjs" }),
      call("grep", { pattern: "Errors\\(", path: "build/value", literal: false }),
      call("read", { path: "build/value/errors/errors.mjs" }),
      call("grep", { pattern: "import", path: "build/compile/validator.mjs" }),
      call("read", { path: "build/value/check/check.mjs", offset: 1, limit: 40 }),
      call("bash", { command: "wc -l build/value/*/*.mjs | sort -n | tail -15" }),
      say("Value.Check interprets the schema on every call; Compile generates code once and Check runs it."),
    ],
  },
  {
    tag: "[real 5]",
    prompt: "[real 5] Read the twelve value operations' main files at once and tell me which ones call Check.",
    steps: [
      ["assert/assert", "clean/clean", "clone/clone", "convert/convert", "create/create", "default/default", "equal/equal", "hash/hash", "parse/parse", "pointer/index", "repair/repair", "delta/diff"].map((file) => ({
        type: "toolCall" as const,
        name: "read",
        arguments: { path: `build/value/${file}.mjs` },
      })),
      call("grep", { pattern: "Check\\(", path: "build/value", glob: "*.mjs" }),
      call("bash", { command: "git status --short" }),
      say("assert, parse and repair call Check; the others transform values without checking them."),
    ],
  },
];

function git(project: string, ...args: string[]): void {
  const result = Bun.spawnSync(["git", "-c", "user.name=bench", "-c", "user.email=bench@example.invalid", "-c", "init.defaultBranch=main", ...args], { cwd: project, stdout: "ignore", stderr: "pipe" });
  if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.toString().slice(0, 200)}`);
}

/** The breakdown: tokens per kind, summed over one agent's requests. */
export type Breakdown = Map<string, number>;

const add = (breakdown: Breakdown, kind: string, tokens: number) => breakdown.set(kind, (breakdown.get(kind) ?? 0) + tokens);
const tokensOf = (value: unknown) => countTokens(JSON.stringify(value) ?? "");
const withoutMarker = ({ cache_control, ...rest }: any) => rest;

/** Adds one Anthropic Messages request body to a breakdown. */
export function breakDown(breakdown: Breakdown, body: any): void {
  for (const tool of body.tools ?? []) add(breakdown, "tool definitions", tokensOf(withoutMarker(tool)));
  const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
  for (const part of system) add(breakdown, "system prompt", tokensOf(withoutMarker(part)));
  const toolNames = new Map<string, string>();
  const seenResults = new Set<string>();
  for (const message of body.messages ?? []) {
    const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
    for (const part of content) {
      const tokens = tokensOf(withoutMarker(part));
      if (part.type === "tool_use") {
        toolNames.set(part.id, part.name);
        add(breakdown, "model: tool calls", tokens);
      } else if (part.type === "tool_result") {
        add(breakdown, `result: ${toolNames.get(part.tool_use_id) ?? "?"}`, tokens);
        const text = JSON.stringify(part.content);
        if (seenResults.has(text)) add(breakdown, "of which repeats an earlier result", tokens);
        seenResults.add(text);
      } else if (part.type === "thinking" || part.type === "redacted_thinking") add(breakdown, "model: thinking", tokens);
      else if (part.type === "image") add(breakdown, "images", tokens);
      else add(breakdown, message.role === "user" ? "user prompts" : "model: text", tokens);
    }
  }
}

export function realScenario(onRequest: Scenario["onRequest"]): Scenario {
  return {
    tasks: REAL_TASKS,
    makeProject(project) {
      cpSync(TYPEBOX, project, { recursive: true });
      mkdirSync(join(project, "test"), { recursive: true });
      git(project, "init", "-q", ".");
      git(project, "add", "-A");
      git(project, "commit", "-q", "-m", "typebox as published");
    },
    verify(project) {
      const test = readFileSync(join(project, "test", "compile.test.ts"), "utf8");
      if (!test.includes("toHaveLength(2)") || !existsSync(join(project, "..", "mirror", "package.json"))) throw new Error("the session's edit or clone did not land");
    },
    args: ["--tools", "read,bash,edit,write,grep,find,ls"],
    onRequest,
  };
}

const KIND_ORDER = ["system prompt", "tool definitions", "user prompts", "model: text", "model: tool calls", "model: thinking", "images"];

export const tokenReal: Workload = {
  name: "Token cost of a session on a real source tree (typebox, Anthropic, normal pace)",
  id: "tokensreal",
  runs: 1,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const list = runners(context);
    const workload = this.name;
    const breakdowns = new Map<string, Breakdown>(list.map((r) => [r.label, new Map()]));
    const results = new Map<string, Served>();
    const notes: Record<string, string> = {};
    const scenario = realScenario((label, body) => breakDown(breakdowns.get(label)!, body));
    for (const runner of list) {
      try {
        const served = await runSession(context, runner, "anthropic-messages", 30, scenario);
        results.set(runner.label, served);
        context.log(`  ${runner.label}: ${served.requests} requests, $${served.usage.cost.toFixed(4)}`);
      } catch (error) {
        notes[runner.label] = (error as Error).message.split("\n")[0]!.slice(0, 200);
        context.log(`  ${runner.label} failed: ${notes[runner.label]}`);
      }
    }
    if (list[1] && results.has(list[0]!.label) && results.has(list[1].label) && results.get(list[0]!.label)!.steps.join() !== results.get(list[1].label)!.steps.join()) {
      notes[list[0]!.label] = `served other script steps than ${list[1].label}`;
    }
    const pick = (f: (s: Served) => number) => Object.fromEntries(list.map((r) => [r.label, results.has(r.label) ? f(results.get(r.label)!) : Number.NaN]));
    const rows: ResultRow[] = [
      { workload, metric: "requests", kind: "count", values: pick((s) => s.requests), notes },
      { workload, metric: "prompt tokens", kind: "count", values: pick((s) => s.usage.input + s.usage.cacheRead + s.usage.cacheWrite + s.usage.cacheWriteLong), notes },
      { workload, metric: "cache read", kind: "count", values: pick((s) => s.usage.cacheRead), notes },
      { workload, metric: "cache write", kind: "count", values: pick((s) => s.usage.cacheWrite + s.usage.cacheWriteLong), notes },
      { workload, metric: "cost (micro-dollars)", kind: "count", values: pick((s) => Math.round(s.usage.cost * 1_000_000)), notes },
    ];
    const kinds = new Set<string>();
    for (const breakdown of breakdowns.values()) for (const kind of breakdown.keys()) kinds.add(kind);
    const ordered = [...KIND_ORDER.filter((k) => kinds.has(k)), ...[...kinds].filter((k) => !KIND_ORDER.includes(k)).sort()];
    for (const kind of ordered) {
      rows.push({
        workload,
        metric: `prompt tokens carrying ${kind}, summed over requests`,
        kind: "count",
        values: Object.fromEntries(list.map((r) => [r.label, results.has(r.label) ? (breakdowns.get(r.label)!.get(kind) ?? 0) : Number.NaN])),
      });
    }
    if (process.env.XCSH_BENCH_TOKENS_BREAKDOWN) writeFileSync(process.env.XCSH_BENCH_TOKENS_BREAKDOWN, JSON.stringify(Object.fromEntries([...breakdowns].map(([k, v]) => [k, Object.fromEntries(v)])), null, 2));
    return rows;
  },
};
