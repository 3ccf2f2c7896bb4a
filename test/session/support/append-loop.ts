/**
 * The victim of the crash test: opens (or starts) the session file given as
 * argument, prints "ready", then appends entries until it is killed, printing
 * each entry's id on stdout only after its append has returned. Every printed
 * id is therefore a promise that the entry is on disk.
 *
 * Entries vary in size (some tens of kilobytes) so a kill can land in the
 * middle of a large write.
 */
import { writeSync } from "node:fs";
import { SessionManager } from "../../../src/session/index.ts";

const file = process.argv[2];
if (!file) throw new Error("usage: append-loop.ts <session file>");

const session = SessionManager.open(file);
writeSync(1, "ready\n");
for (let count = 0; ; count++) {
  const size = count % 50 === 49 ? 16_000 : 100 + (count % 7) * 40;
  const text = `entry ${count} `.padEnd(size, "x");
  const id =
    count % 3 === 2
      ? session.appendCustomEntry("crash-test", { count, text })
      : session.appendMessage({ role: "user", content: text, timestamp: Date.now() });
  writeSync(1, `${id}\n`);
}
