/**
 * Nothing is lost: a process appending to a session is SIGKILLed at random
 * moments. After every kill the file must load and hold every entry whose id
 * the process had printed (it prints only after the append returned). The
 * next process continues the same file, so each run also starts from whatever
 * the previous kill left behind; every few kills a new file is started, which
 * keeps the files (and the test) small.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { SessionManager } from "../../src/session/index.ts";
import { makeTempDir, userMessage, type TempDir } from "./support/helpers.ts";

const CHILD = join(import.meta.dir, "support", "append-loop.ts");
const KILLS = 32;
const KILLS_PER_FILE = 8;

let dir: TempDir;
beforeAll(() => {
  dir = makeTempDir("xcsh-crash-");
});
afterAll(() => dir.cleanup());

/** Runs the appender, kills it 5–60 ms after it is ready, and returns the ids it printed. */
async function appendUntilKilled(file: string): Promise<string[]> {
  const child = Bun.spawn(["bun", CHILD, file], { stdout: "pipe", stderr: "pipe" });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let output = "";
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    output += decoder.decode(value, { stream: true });
    if (killTimer === undefined && output.startsWith("ready\n")) {
      killTimer = setTimeout(() => child.kill("SIGKILL"), 5 + Math.random() * 55);
    }
  }
  const exitCode = await child.exited;
  if (killTimer === undefined) throw new Error(`appender never got ready: ${await new Response(child.stderr).text()}`);
  expect(child.signalCode).toBe("SIGKILL");
  expect(exitCode).not.toBe(0);
  const lines = output.split("\n");
  // The last piece may be an id cut short by the kill (its append returned, its print did not finish).
  lines.pop();
  return lines.slice(1);
}

test(`every appended entry survives ${KILLS} SIGKILLs at random moments`, async () => {
  let promised = new Set<string>();
  let promisedTotal = 0;
  let tornTails = 0;
  let file = "";
  for (let round = 0; round < KILLS; round++) {
    if (round % KILLS_PER_FILE === 0) {
      file = dir.join(`crash-${round / KILLS_PER_FILE}.jsonl`);
      promised = new Set();
    }
    const printed = await appendUntilKilled(file);
    for (const id of printed) promised.add(id);
    promisedTotal += printed.length;
    const session = SessionManager.open(file); // must not throw
    const missing = [...promised].filter((id) => !session.getEntry(id));
    expect(missing).toEqual([]);
    // Torn tails are rare (the kernel usually completes a write); the fresh-line rule is also tested directly.
    if (session.getLoadWarnings().some((warning) => warning.includes("incomplete"))) tornTails++;
  }
  expect(promisedTotal).toBeGreaterThan(KILLS);

  // One more append after the last kill starts on a fresh line, whatever the kill left.
  const session = SessionManager.open(file);
  const before = session.getEntries().length;
  const previousLeaf = session.getLeafId();
  const last = session.appendMessage(userMessage("after the crashes"));
  const reloaded = SessionManager.open(file);
  expect(reloaded.getEntries()).toHaveLength(before + 1);
  expect(reloaded.getLeafEntry()).toMatchObject({ id: last, parentId: previousLeaf });
  expect([...promised].filter((id) => !reloaded.getEntry(id))).toEqual([]);
  if (process.env.XCSH_CRASH_TEST_VERBOSE) console.error(`${promisedTotal} entries, ${tornTails} torn tails`);
}, 30_000);
