/**
 * What a newcomer meets in the first hour, through the built binary: pi's
 * subcommands that xcsh lacks are refused instead of run as prompts; a home
 * where sessions cannot be saved gives one warning and `sessionFile: null`;
 * an unreadable working folder is named as such; a missing key is exit 3
 * whether or not a provider was named.
 *
 * Permission bits do not bind root, so as root the binary runs as `nobody`
 * (setpriv) on files root owns; as anyone else the files are made read-only.
 */
import { afterAll, afterEach, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, makeTestHome, runXcsh, type FakeModelHome, type RunResult } from "../support/cli.ts";

const isRoot = process.getuid?.() === 0;
const setpriv = Bun.which("setpriv");
const NOBODY = 65534;
const canDropPrivileges = !isRoot || setpriv !== null;

/** The command line run as a user whom permission bits bind. */
function unprivileged(argv: string[]): string[] {
  return isRoot ? [setpriv!, `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...argv] : argv;
}

/** Runs `argv` (after the binary) as that user, in `cwd`, to the end. */
async function runUnprivileged(argv: string[], env: Record<string, string>, cwd: string): Promise<RunResult> {
  const proc = Bun.spawn(unprivileged([ensureBinary(), ...argv]), { env, cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { stdout, stderr, exitCode };
}

describe("pi's subcommands that xcsh lacks", () => {
  let fake: FakeModelHome;
  beforeEach(async () => {
    fake = await makeFakeModelHome();
    fake.home.writeSettings({ defaultProvider: "fake", defaultModel: "m" });
  });
  afterEach(() => fake.cleanup());

  for (const [word, advice] of [["login", "xcsh auth login"], ["logout", "xcsh auth logout"]]) {
    test(`\`xcsh ${word}\` is refused with what to do, exit 2, and no model run`, async () => {
      const result = await runXcsh([word, "something"], { env: fake.home.env });
      expect(result.exitCode).toBe(2);
      expect(result.stdout).toBe("");
      expect(result.stderr).toContain(`"${word}" is not an xcsh command`);
      expect(result.stderr).toContain(advice!);
      expect(result.stderr).toContain(`xcsh -- ${word}`);
      expect(fake.server.requests.length).toBe(0);
    });
  }

  test("the word later on the line, or after --, is still a prompt", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] });
    const later = await runXcsh(["-p", "login"], { env: fake.home.env });
    expect(later.exitCode).toBe(0);
    expect(later.stdout).toBe("one\n");
    const quoted = await runXcsh(["--", "login"], { env: fake.home.env });
    expect(quoted.exitCode).toBe(0);
    expect(quoted.stdout).toBe("two\n");
    expect(fake.server.requests.length).toBe(2);
  });
});

describe("a home where sessions cannot be saved", () => {
  let fake: FakeModelHome;
  beforeEach(async () => {
    fake = await makeFakeModelHome();
    // Open to `nobody` for reading, closed for writing (root owns it; others lose the write bit).
    chmodSync(fake.home.home, 0o755);
    for (const dir of [join(fake.home.home, ".xcsh"), fake.home.agentDir]) chmodSync(dir, isRoot ? 0o755 : 0o555);
  });
  afterEach(async () => {
    for (const dir of [join(fake.home.home, ".xcsh"), fake.home.agentDir]) chmodSync(dir, 0o755);
    await fake.cleanup();
  });

  test.skipIf(!canDropPrivileges)("-p answers, warns once at start with the fix, and exits 0", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "answered" }] });
    const result = await runUnprivileged(["--model", "fake/m", "-p", "hi"], fake.home.env, fake.home.home);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("answered\n");
    const lines = result.stderr.trim().split("\n");
    expect(lines.length).toBe(1);
    expect(lines[0]).toContain("sessions cannot be saved");
    expect(lines[0]).toContain("--session-dir");
    expect(lines[0]).toContain("--no-session");
    expect(result.stderr).not.toContain("event listener failed");
  });

  test.skipIf(!canDropPrivileges)("the json envelope says sessionFile: null, and no file appears", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "answered" }] });
    const result = await runUnprivileged(["--model", "fake/m", "--mode", "json", "hi"], fake.home.env, fake.home.home);
    expect(result.exitCode).toBe(0);
    const envelope = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
    expect(envelope.status).toBe("success");
    expect(envelope.sessionFile).toBeNull();
    expect(existsSync(join(fake.home.agentDir, "sessions"))).toBe(false);
  });

  test.skipIf(!canDropPrivileges)("--no-session runs without the warning; --session-dir saves there", async () => {
    fake.server.enqueue({ content: [{ type: "text", text: "one" }] }, { content: [{ type: "text", text: "two" }] });
    const quiet = await runUnprivileged(["--model", "fake/m", "--no-session", "-p", "hi"], fake.home.env, fake.home.home);
    expect(quiet.exitCode).toBe(0);
    expect(quiet.stderr).toBe("");
    const elsewhere = mkdtempSync(join(tmpdir(), "xcsh-sessions-"));
    try {
      if (isRoot) chownSync(elsewhere, NOBODY, NOBODY);
      const saved = await runUnprivileged(["--model", "fake/m", "--session-dir", elsewhere, "-p", "hi"], fake.home.env, fake.home.home);
      expect(saved.exitCode).toBe(0);
      expect(saved.stderr).toBe("");
      expect(readdirSync(elsewhere).filter((name) => name.endsWith(".jsonl")).length).toBe(1);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});

describe("an unreadable working folder", () => {
  test.skipIf(!canDropPrivileges)("is named as the folder, not as a settings file to fix or delete", async () => {
    const fake = await makeFakeModelHome();
    const project = mkdtempSync(join(tmpdir(), "xcsh-closed-"));
    try {
      chmodSync(fake.home.home, 0o755);
      if (isRoot) chownSync(project, NOBODY, NOBODY);
      // The folder is entered, then closed: as when its permissions change under a shell that is in it.
      // As root, root enters it (spawn's cwd) and setpriv starts the binary as `nobody` from there: a
      // shell run as `nobody` could not reach the binary when the checkout sits in a folder only root
      // may enter (/root, a `mktemp -d` folder), and would exit 126 before xcsh ran.
      const argv = [ensureBinary(), "--model", "fake/m", "-p", "hi"];
      let proc;
      if (isRoot) {
        chmodSync(project, 0o000);
        proc = Bun.spawn(unprivileged(argv), { env: fake.home.env, cwd: project, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      } else {
        const script = `cd '${project}' && chmod 000 '${project}' && exec ${argv.map((word) => `'${word}'`).join(" ")}`;
        proc = Bun.spawn(["sh", "-c", script], { env: fake.home.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      }
      const [stderr, exitCode] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
      expect(exitCode).toBe(2);
      expect(stderr).toContain(`${project}: the working folder cannot be opened (permission denied)`);
      expect(stderr).toContain("chmod u+rx");
      expect(stderr).not.toContain("Fix or delete the file");
      expect(fake.server.requests.length).toBe(0);
    } finally {
      chmodSync(project, 0o755);
      rmSync(project, { recursive: true, force: true });
      await fake.cleanup();
    }
  });
});

describe("a missing key", () => {
  const home = makeTestHome();
  afterAll(() => home.cleanup());

  for (const args of [[], ["--provider", "anthropic"], ["--model", "gpt-5.1"]]) {
    test(`is exit 3 and error.kind "credentials" ${args.length ? `with ${args.join(" ")}` : "when no provider is named"}`, async () => {
      const result = await runXcsh([...args, "--mode", "json", "hi"], { env: home.env });
      expect(result.exitCode).toBe(3);
      const envelope = JSON.parse(result.stdout.trim().split("\n").at(-1)!);
      expect(envelope.error.kind).toBe("credentials");
      expect(result.stderr).toMatch(/API key/);
    });
  }

  test("-p exits 3 too", async () => {
    const result = await runXcsh(["-p", "hi"], { env: home.env });
    expect(result.exitCode).toBe(3);
  });
});

