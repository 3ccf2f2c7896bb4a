/**
 * The program that waits in a sandbox started ahead (src/sandbox/warm-sandbox.ts) gets the
 * command and the changes to its environment down a pipe; whatever the values hold
 * (newlines, quotes, `$(…)`, backslashes, leading spaces, an empty string), the command
 * must get exactly the environment and arguments a fresh start would give it, and nothing
 * of the shim's own. The shim is run here without bubblewrap, as it runs inside it.
 */
import { describe, expect, test } from "bun:test";
import { commandFields, shimArgv } from "../../src/sandbox/warm-sandbox.ts";

const shim = shimArgv();
const ENV = Bun.which("env");

/** Runs the shim started with `started`, hands it `wanted` and `argv`; the environment and arguments the command saw. */
async function throughShim(started: Record<string, string>, wanted: Record<string, string>, argv: string[]): Promise<{ env: Record<string, string>; stdout: string; code: number }> {
  const fields = commandFields(argv, started, wanted);
  if (!fields) throw new Error("no fields");
  const proc = Bun.spawn(shim!, { env: started, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  proc.stdin.write(`${fields.join("\0")}\0`);
  await proc.stdin.end();
  const stdout = await new Response(proc.stdout).text();
  const code = await proc.exited;
  const env: Record<string, string> = {};
  for (const entry of stdout.split("\0")) {
    const at = entry.indexOf("=");
    if (at > 0) env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  return { env, stdout, code };
}

describe.skipIf(!shim || !ENV || process.platform !== "linux")("the shim in a waiting sandbox", () => {
  const base = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: "/home/someone", SHLVL: "3", KEEP: "same", GONE: "bye" };
  const tricky = {
    NEWLINES: "a\nb\n\n",
    QUOTES: `it's "quoted" and \`ticked\` $(echo no) \${HOME}`,
    BACKSLASHES: "C:\\path\\n\\\\",
    SPACES: "  leading and trailing  ",
    EMPTY: "",
    EQUALS: "a=b=c",
    UNICODE: "grüße – ✓",
  };

  test("the command gets exactly the environment asked for: changed, added and removed variables, and the tag", async () => {
    const wanted = { ...base, KEEP: "same", HOME: "/home/other", ...tricky, XCSH_PROCESS_TAG: "run/7" } as Record<string, string>;
    delete wanted.GONE;
    const { env, code } = await throughShim(base, wanted, [ENV!, "-0"]);
    expect(code).toBe(0);
    // PWD is bash's own (set to the folder it runs in): a fresh command's shell sets it the same way.
    delete env.PWD;
    expect(env).toEqual(wanted);
  });

  test("arguments pass as they are, empty ones and newlines included; stdin is at its end", async () => {
    const args = ["one two", "", "line\nbreak", "--flag=$(x)", "*"];
    const { stdout, code } = await throughShim(base, { ...base, XCSH_PROCESS_TAG: "t" }, ["/bin/sh", "-c", 'printf "[%s]" "$@"; printf "<%s>" "$(cat)"', "sh", ...args]);
    expect(code).toBe(0);
    expect(stdout).toBe(`${args.map((arg) => `[${arg}]`).join("")}<>`);
  });

  test("what the shim cannot hand on exactly goes to a fresh sandbox", () => {
    expect(commandFields(["git", "status"], base, base)).toBeUndefined(); // found on PATH: bwrap's lookup, not bash's
    expect(commandFields(["/bin/sh"], base, { ...base, "BAD-NAME": "x" })).toBeUndefined();
    expect(commandFields(["/bin/sh"], base, { ...base, "BASH_FUNC_f%%": "() { :; }" })).toBeUndefined();
    expect(commandFields(["/bin/sh"], base, { ...base, SHLVL: "9" })).toBeUndefined();
    expect(commandFields(["/bin/sh", "a\0b"], base, base)).toBeUndefined();
    expect(commandFields([], base, base)).toBeUndefined();
  });
});
