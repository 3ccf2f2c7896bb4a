/**
 * The interactive mode as a person feels it: each agent runs in a tmux pane
 * (120×40, TERM=xterm-256color, a private tmux server per run) and is timed
 * from outside through a tmux control client (tmux-control.ts).
 *
 * - First frame: a marker key is typed the moment the pane exists, before the
 *   agent can read it; timed from opening the pane to the editor drawn, and to
 *   the marker echoed in the editor (the first moment typing works).
 * - Keystroke → echo: with the agent idle, one letter at a time, timed from
 *   send-keys to the letter in the editor; the median of 20 letters.
 * - Streaming: Enter sends the typed line; the stream server answers 20 KB in
 *   2 500 deltas. Wall time to the answer's last lines on screen (and the
 *   footer's output-token count, which appears once the message is complete),
 *   and the agent's CPU time over the same span (utime + stime of the pane's
 *   process from /proc/<pid>/stat: the pane runs the agent through `exec`).
 *
 * Both agents draw their editor between two full-width rules above the
 * footer; its text is what is read between the last two rules on screen.
 * tmux's own cost (send-keys, reading the pty, a capture: ~0.6 ms) is in every
 * figure, the same for both agents.
 */
import { chmodSync, existsSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { STREAM_MODEL_ARG, type Agent } from "../agents.ts";
import { median } from "../stats.ts";
import { STREAM_REPLY } from "../stream-answer.ts";
import { quote, TmuxControl } from "../tmux-control.ts";
import { medians, runsFor, sampleRounds, type BenchContext, type ResultRow, type Workload } from "../types.ts";

const WIDTH = 120;
const HEIGHT = 40;
/** Typed before the agent is up; not a key either agent binds. */
const MARKER = "x";
/** One letter per keystroke; 20 of them. */
const WORD = "thequickbrownfoxjump";
const FIRST_FRAME_TIMEOUT_MS = 30_000;
const ECHO_TIMEOUT_MS = 5_000;
const STREAM_TIMEOUT_MS = 60_000;
/** A typist's pause between keys: any work a key sets off has settled before the next. */
const KEY_GAP_MS = 40;

interface InteractiveSample {
  editorDrawnMs: number;
  firstEchoMs: number;
  echoMs: number;
  streamCpuMs: number;
  streamWallMs: number;
}

const RULE = /^\s*─{40,}\s*$/;

/** The editor's text: the lines between the last two full-width rules, trimmed; undefined before it is drawn. */
export function editorText(screen: string): string | undefined {
  const lines = screen.split("\n");
  const rules = lines.flatMap((line, index) => (RULE.test(line) ? [index] : []));
  if (rules.length < 2) return undefined;
  const [top, bottom] = rules.slice(-2);
  return lines
    .slice(top + 1, bottom)
    .map((line) => line.trim())
    .join("\n")
    .trim();
}

/**
 * The answer's last three lines, in order, directly above the editor. The
 * answer's text repeats, so they occur earlier in it too; the footer's output
 * tokens (↓) appear only once the message is complete, which rules those out.
 */
function answerEnd(): (screen: string) => boolean {
  const text = (STREAM_REPLY.content[0] as { text: string }).text;
  const tail = text.trimEnd().split("\n").slice(-3).map((line) => line.trim());
  return (screen) => {
    const lines = screen.split("\n").map((line) => line.trim());
    const rules = lines.flatMap((line, index) => (RULE.test(line) ? [index] : []));
    if (rules.length < 2) return false;
    const [top, bottom] = rules.slice(-2);
    const above = lines.slice(0, top).filter((line) => line !== "");
    const footer = lines.slice(bottom + 1).join(" ");
    return above.slice(-3).join("\n") === tail.join("\n") && /↓\s*\d/.test(footer);
  };
}

const CLOCK_TICKS = (() => {
  const result = Bun.spawnSync(["getconf", "CLK_TCK"], { stdout: "pipe", stderr: "ignore" });
  return Number(result.stdout.toString().trim()) || 100;
})();

/** utime + stime of a process, in ms. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at field 3: utime is field 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}

/** The pane's script: the agent alone in a fresh environment, `exec`ed so the pane's pid is the agent's. */
function paneScript(agent: Agent): string {
  const script = join(agent.home, "interactive.sh");
  const env = Object.entries({ ...agent.env, TERM: "xterm-256color" }).map(([name, value]) => `${name}=${quote(value)}`);
  const command = [...agent.command, "--model", STREAM_MODEL_ARG, "--no-session", "--no-tools"].map(quote);
  writeFileSync(script, `#!/bin/sh\ncd ${quote(agent.project)} || exit 1\nexec env -i ${env.join(" ")} ${command.join(" ")}\n`);
  chmodSync(script, 0o755);
  return script;
}

async function stopped(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (!existsSync(`/proc/${pid}`)) return true;
    await Bun.sleep(20);
  }
  return !existsSync(`/proc/${pid}`);
}

type Describe = (screen: string, why: string) => string;

/** Types WORD a letter at a time after `prefix`, timing each from send-keys to `echoed(screen)` holding the text so far. */
async function typeAndTimeEchoes(
  tmux: TmuxControl,
  pane: string,
  prefix: string,
  echoed: (screen: string) => string | undefined,
  describe: (letter: string, expected: string) => Describe,
): Promise<number[]> {
  const echoes: number[] = [];
  let typed = prefix;
  for (const letter of WORD) {
    await Bun.sleep(KEY_GAP_MS);
    typed += letter;
    const expected = typed;
    const sent = performance.now();
    await tmux.type(pane, letter);
    const echo = await tmux.waitFor(pane, (screen) => echoed(screen) === expected, { timeoutMs: ECHO_TIMEOUT_MS, describe: describe(letter, expected) });
    echoes.push(echo.at - sent);
  }
  return echoes;
}

async function interactiveOnce(agent: Agent, script: string): Promise<InteractiveSample> {
  const tmux = await TmuxControl.start(WIDTH, HEIGHT);
  let pid: number | undefined;
  const failure = (what: string) => (screen: string, why: string) => `${agent.label}: waited for ${what}, ${why}\nthe screen:\n${screen.trimEnd()}`;
  try {
    const opened = performance.now();
    const pane = await tmux.open(`exec ${script}`);
    pid = pane.pid;
    await tmux.type(pane.pane, MARKER);

    let editorDrawnAt = Number.NaN;
    const firstEcho = await tmux.waitFor(
      pane.pane,
      (screen) => {
        const text = editorText(screen);
        if (text !== undefined && Number.isNaN(editorDrawnAt)) editorDrawnAt = performance.now();
        return text === MARKER;
      },
      { timeoutMs: FIRST_FRAME_TIMEOUT_MS, fallbackMs: 5, describe: failure("the editor echoing a key typed at start") },
    );
    // The CPU figure is the pane process's own: it must be the agent (pi renames its title, so check the executable).
    const executable = readlinkSync(`/proc/${pid}/exe`);
    if (/\/(sh|dash|bash|env)$/.test(executable)) throw new Error(`${agent.label}: the pane's process is ${executable}, not the agent`);

    const echoes = await typeAndTimeEchoes(tmux, pane.pane, MARKER, editorText, (letter, expected) => failure(`the echo of "${letter}" (editor "${expected}")`));

    await Bun.sleep(100);
    const cpuBefore = cpuMs(pid);
    const sent = performance.now();
    await tmux.key(pane.pane, "Enter");
    // The agent writes a lot while streaming: capturing at every write would load tmux, so at most every 5 ms.
    const end = await tmux.waitFor(pane.pane, answerEnd(), { timeoutMs: STREAM_TIMEOUT_MS, minIntervalMs: 5, describe: failure("the end of the 20 KB answer") });
    const cpuAfter = cpuMs(pid);
    return {
      editorDrawnMs: editorDrawnAt - opened,
      firstEchoMs: firstEcho.at - opened,
      echoMs: median(echoes),
      streamCpuMs: cpuAfter - cpuBefore,
      streamWallMs: end.at - sent,
    };
  } finally {
    tmux.close();
    // The hang-up ends both agents; one that ignores it is killed, so no run leaves a process behind.
    if (pid !== undefined && !(await stopped(pid, 3_000))) {
      process.kill(pid, "SIGKILL");
      await stopped(pid, 2_000);
    }
  }
}

/** The same keystroke timing against the pty's own echo (`cat` in a cooked terminal): what tmux and this process add. */
async function floorOnce(): Promise<number> {
  const tmux = await TmuxControl.start(WIDTH, HEIGHT);
  try {
    const pane = await tmux.open("exec cat");
    const echoes = await typeAndTimeEchoes(tmux, pane.pane, "", (screen) => screen.split("\n")[0]!, (letter) => (screen, why) =>
      `cat: waited for the echo of "${letter}", ${why}\nthe screen:\n${screen.trimEnd()}`,
    );
    return median(echoes);
  } finally {
    tmux.close();
  }
}

function tmuxMissing(): string | undefined {
  return Bun.which("tmux") ? undefined : "tmux is not installed";
}

export const interactive: Workload = {
  name: "Interactive mode in a terminal (tmux 120×40)",
  id: "interactive",
  runs: 9,
  async run(context: BenchContext): Promise<ResultRow[]> {
    const runs = runsFor(context, this.runs);
    const missing = tmuxMissing() ?? (process.platform === "linux" ? undefined : "CPU time is read from /proc (Linux only)");
    const scripts = new Map(context.agents.map((agent) => [agent.label, paneScript(agent)]));
    const samples = missing
      ? { byAgent: new Map<string, InteractiveSample[]>(), failures: Object.fromEntries(context.agents.map((agent) => [agent.label, missing])) }
      : await sampleRounds(context.agents, runs, async (agent) => {
          try {
            return await interactiveOnce(agent, scripts.get(agent.label)!);
          } catch (error) {
            context.log((error as Error).message);
            throw error;
          }
        });
    const floors: number[] = [];
    if (!missing) for (let round = -1; round < runs; round++) floors.push(await floorOnce());
    const ours = context.agents[0].label;
    const row = (metric: string, pick: (sample: InteractiveSample) => number): ResultRow => ({
      workload: this.name,
      metric,
      kind: "time",
      values: { ...Object.fromEntries(context.agents.map((agent) => [agent.label, Number.NaN])), ...medians(samples, pick) },
      notes: samples.failures,
    });
    return [
      row("spawn → editor drawn", (sample) => sample.editorDrawnMs),
      row("first frame: spawn → a key typed at spawn echoed in the editor", (sample) => sample.firstEchoMs),
      row(`keystroke → echo (median of ${WORD.length} keys, idle)`, (sample) => sample.echoMs),
      { workload: this.name, metric: "keystroke → echo by the terminal itself (`cat`, cooked mode): tmux's share", kind: "time", values: { [ours]: median(floors.slice(1)) } },
      row("20 KB answer in 2 500 deltas: Enter → its end on screen", (sample) => sample.streamWallMs),
      row("20 KB answer: agent CPU time (user + sys) over that span", (sample) => sample.streamCpuMs),
    ];
  },
};
