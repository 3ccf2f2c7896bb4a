/**
 * A reader that goes away (`xcsh … | head`, a host that died) closes xcsh's
 * stdout: xcsh stops with one line on stderr and exit code 141, in every mode,
 * instead of a stack trace.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY, ensureBinary, makeTestHome } from "../support/cli.ts";

const home = makeTestHome();
afterAll(() => home.cleanup());

/** Runs `command` with its stdout cut after 20 bytes; resolves with xcsh's exit code and stderr. */
async function cutShort(args: string, stdinLines: string[] = []): Promise<{ code: number; stderr: string }> {
  ensureBinary();
  const input = stdinLines.map((line) => `printf '%s\\n' '${line}'; sleep 0.3;`).join(" ");
  const script = `(${input || "true"}) | "${BINARY}" ${args} 2>"$ERR" | head -c 20 >/dev/null; echo "\${PIPESTATUS[1]}"`;
  const err = `${home.home}/stderr-${Math.random().toString(36).slice(2)}.txt`;
  const proc = Bun.spawn(["bash", "-c", script], { env: { ...home.env, ERR: err }, cwd: home.home, stdout: "pipe", stderr: "inherit" });
  const code = Number((await new Response(proc.stdout).text()).trim());
  return { code, stderr: await Bun.file(err).text() };
}

describe("a closed stdout", () => {
  test("json mode stops with exit 141 and one line", async () => {
    // Far more output than a pipe buffers, so the writes outlast the reader for certain.
    const script = join(home.home, "long-answer.json");
    writeFileSync(script, JSON.stringify([{ content: [{ type: "text", text: "word ".repeat(40_000) }], chunkSize: 200 }]));
    const { code, stderr } = await cutShort(`--mode json -p --provider faux --faux-script ${script} --no-session hello`);
    expect(code).toBe(141);
    expect(stderr).toBe("xcsh: stdout was closed (EPIPE); stopping\n");
  });

  test("rpc mode stops with exit 141 and one line", async () => {
    const { code, stderr } = await cutShort("--mode rpc --provider faux --no-session", ['{"type":"prompt","message":"hello"}', '{"type":"get_state"}']);
    expect(code).toBe(141);
    expect(stderr).toBe("xcsh: stdout was closed (EPIPE); stopping\n");
  });
});
