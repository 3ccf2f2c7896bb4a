/**
 * scripts/install.sh against a release served over loopback HTTP, as a user's
 * `sh install.sh` would meet it: the right binary for this machine lands in
 * ~/.local/bin only when its checksum matches SHA256SUMS. The script finds its
 * repository in the stamp the release workflow writes, else in the origin remote of
 * the clone it sits in; a stand-in curl sends its github.com requests here, so the
 * server sees the release path the script computed.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { hostTarget } from "../../scripts/build-binaries.ts";

const ROOT = join(import.meta.dir, "..", "..");
const INSTALL_SH = join(ROOT, "scripts", "install.sh");
const HOST_ASSET = `xcsh-${hostTarget()!.name}`;
/** Stands in for a release binary: answers --version like the real one. */
const FAKE_BINARY = '#!/bin/sh\necho "xcsh 9.9.9 (fake release)"\n';

let releaseDir: string;
let home: string;
let server: Server<undefined>;
/** Holds a curl that sends https://github.com/… to the fake server and everything else on. */
let fakeGithubBin: string;
const requested: string[] = [];

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

function publish(files: Record<string, string>): void {
  rmSync(releaseDir, { recursive: true, force: true });
  mkdirSync(releaseDir);
  for (const [name, content] of Object.entries(files)) writeFileSync(join(releaseDir, name), content);
}

/** A release with the host binary and a good SHA256SUMS listing it among the others. */
function publishGoodRelease(binary = FAKE_BINARY): void {
  publish({
    [HOST_ASSET]: binary,
    SHA256SUMS: [`${sha256("other")}  xcsh-windows-x64.exe`, `${sha256(binary)}  ${HOST_ASSET}`].join("\n") + "\n",
  });
}

async function runScript(command: string[], env: Record<string, string>, cwd = home) {
  const proc = Bun.spawn(command, {
    env: { HOME: home, PATH: `${fakeGithubBin}:/usr/local/bin:/usr/bin:/bin`, SHELL: "/bin/bash", FAKE_GITHUB: server.url.href.replace(/\/$/, ""), ...env },
    cwd,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

async function install(env: Record<string, string> = {}) {
  return runScript(["sh", INSTALL_SH], { XCSH_RELEASE_URL: server.url.href, ...env });
}

function git(cwd: string, ...args: string[]): void {
  const result = Bun.spawnSync(["git", "-c", "init.defaultBranch=main", ...args], { cwd, env: { HOME: home, PATH: "/usr/bin:/bin", GIT_CONFIG_NOSYSTEM: "1" } });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
}

/** A clone of the project, as a contributor has one: scripts/install.sh inside a git repository with this origin. */
function fakeClone(origin?: string): string {
  const clone = join(home, "clone");
  mkdirSync(join(clone, "scripts"), { recursive: true });
  writeFileSync(join(clone, "scripts", "install.sh"), readFileSync(INSTALL_SH));
  git(clone, "init", "-q");
  if (origin) git(clone, "remote", "add", "origin", origin);
  return clone;
}

const latest = (repo: string) => [`${repo}/releases/latest/download/${HOST_ASSET}`, `${repo}/releases/latest/download/SHA256SUMS`];

beforeAll(() => {
  releaseDir = mkdtempSync(join(tmpdir(), "xcsh-release-"));
  fakeGithubBin = mkdtempSync(join(tmpdir(), "xcsh-fake-github-"));
  writeFileSync(
    join(fakeGithubBin, "curl"),
    '#!/bin/sh\nfor arg; do\n  shift\n  case "$arg" in https://github.com/*) arg="$FAKE_GITHUB/${arg#https://github.com/}" ;; esac\n  set -- "$@" "$arg"\ndone\nexec /usr/bin/curl "$@"\n',
    { mode: 0o755 },
  );
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const name = decodeURIComponent(new URL(request.url).pathname.slice(1));
      requested.push(name);
      // <owner>/<repo>/releases/…/<file>, as on github.com, serves the same release.
      const file = Bun.file(join(releaseDir, name.includes("/releases/") ? name.slice(name.lastIndexOf("/") + 1) : name));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
});
afterAll(async () => {
  await server.stop(true);
  rmSync(releaseDir, { recursive: true, force: true });
  rmSync(fakeGithubBin, { recursive: true, force: true });
});
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "xcsh-install-home-"));
  requested.length = 0;
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

test("installs this machine's binary into ~/.local/bin and says how to put it on PATH", async () => {
  publishGoodRelease();
  const result = await install();

  expect(result.code).toBe(0);
  expect(requested).toEqual([HOST_ASSET, "SHA256SUMS"]);
  const installed = join(home, ".local", "bin", "xcsh");
  expect(readFileSync(installed, "utf8")).toBe(FAKE_BINARY);
  expect(statSync(installed).mode & 0o111).not.toBe(0);
  expect(result.stdout).toContain(`Installed xcsh 9.9.9 (fake release) to ${installed}`);
  expect(result.stdout).toContain(`${join(home, ".local", "bin")} is not on your PATH`);
  expect(result.stdout).toContain(`export PATH="${join(home, ".local", "bin")}:$PATH"`);
  const run = Bun.spawnSync([installed, "--version"]);
  expect(run.stdout.toString()).toBe("xcsh 9.9.9 (fake release)\n");
});

test("a binary whose checksum does not match is refused and nothing is installed", async () => {
  publish({
    [HOST_ASSET]: FAKE_BINARY,
    SHA256SUMS: `${sha256("what the release was supposed to hold")}  ${HOST_ASSET}\n`,
  });
  const result = await install();

  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(`checksum mismatch for ${HOST_ASSET}`);
  expect(result.stderr).toContain("refusing to install");
  expect(result.stdout).not.toContain("Installed");
  expect(existsSync(join(home, ".local", "bin", "xcsh"))).toBe(false);
  expect(existsSync(join(home, ".local", "bin")) ? readdirSync(join(home, ".local", "bin")) : []).toEqual([]);
});

test("a SHA256SUMS without this binary's entry is refused", async () => {
  publish({ [HOST_ASSET]: FAKE_BINARY, SHA256SUMS: `${sha256(FAKE_BINARY)}  xcsh-some-other-os\n` });
  const result = await install();

  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(`SHA256SUMS has no entry for ${HOST_ASSET}`);
  expect(existsSync(join(home, ".local", "bin", "xcsh"))).toBe(false);
});

test("a failing download is reported and installs nothing", async () => {
  publish({ SHA256SUMS: `${sha256(FAKE_BINARY)}  ${HOST_ASSET}\n` });
  const result = await install();

  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(`could not download ${server.url.href.replace(/\/$/, "")}/${HOST_ASSET}`);
  expect(existsSync(join(home, ".local", "bin", "xcsh"))).toBe(false);
});

test("XCSH_INSTALL_DIR chooses the folder, an existing install is replaced, and no PATH hint when it is on PATH", async () => {
  const dir = join(home, "tools");
  mkdirSync(dir);
  writeFileSync(join(dir, "xcsh"), "old version");
  const upgraded = '#!/bin/sh\necho "xcsh 10.0.0 (fake release)"\n';
  publishGoodRelease(upgraded);
  const result = await install({ XCSH_INSTALL_DIR: dir, PATH: `${dir}:/usr/bin:/bin` });

  expect(result.code).toBe(0);
  expect(readFileSync(join(dir, "xcsh"), "utf8")).toBe(upgraded);
  expect(readdirSync(dir)).toEqual(["xcsh"]);
  expect(result.stdout).toContain(`Installed xcsh 10.0.0 (fake release) to ${join(dir, "xcsh")}`);
  expect(result.stdout).not.toContain("not on your PATH");
  expect(existsSync(join(home, ".local"))).toBe(false);
});

test("XCSH_TARGET picks another platform's asset, with .exe for Windows", async () => {
  publish({ "xcsh-windows-x64.exe": "MZ fake", SHA256SUMS: `${sha256("MZ fake")}  xcsh-windows-x64.exe\n` });
  const result = await install({ XCSH_TARGET: "windows-x64" });

  expect(result.code).toBe(0);
  expect(requested[0]).toBe("xcsh-windows-x64.exe");
  expect(readFileSync(join(home, ".local", "bin", "xcsh.exe"), "utf8")).toBe("MZ fake");
});

for (const origin of ["https://github.com/clone-owner/clone-xcsh.git", "https://github.com/clone-owner/clone-xcsh", "git@github.com:clone-owner/clone-xcsh.git", "ssh://git@github.com/clone-owner/clone-xcsh.git"]) {
  test(`run from a clone whose origin is ${origin}, it installs that repository's latest release`, async () => {
    publishGoodRelease();
    const clone = fakeClone(origin);
    const result = await runScript(["sh", join(clone, "scripts", "install.sh")], {});

    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Using the releases of clone-owner/clone-xcsh (the clone's origin remote)");
    expect(requested).toEqual(latest("clone-owner/clone-xcsh"));
    expect(readFileSync(join(home, ".local", "bin", "xcsh"), "utf8")).toBe(FAKE_BINARY);
  });
}

test("from a clone, XCSH_VERSION picks that release of the origin repository, and XCSH_REPO wins over the origin", async () => {
  publishGoodRelease();
  const clone = fakeClone("git@github.com:clone-owner/clone-xcsh.git");
  const script = join(clone, "scripts", "install.sh");

  expect((await runScript(["sh", script], { XCSH_VERSION: "v0.2.0" })).code).toBe(0);
  expect(requested).toEqual([`clone-owner/clone-xcsh/releases/download/v0.2.0/${HOST_ASSET}`, "clone-owner/clone-xcsh/releases/download/v0.2.0/SHA256SUMS"]);

  requested.length = 0;
  const chosen = await runScript(["sh", script], { XCSH_REPO: "someone-else/xcsh-fork" });
  expect(chosen.code).toBe(0);
  expect(chosen.stdout).toContain("Using the releases of someone-else/xcsh-fork (set by XCSH_REPO)");
  expect(requested).toEqual(latest("someone-else/xcsh-fork"));
});

test("a copy that was not stamped by a release, outside a clone and without XCSH_REPO, says what to do and downloads nothing", async () => {
  publishGoodRelease();
  const loose = join(home, "Downloads");
  mkdirSync(loose);
  writeFileSync(join(loose, "install.sh"), readFileSync(INSTALL_SH));
  const result = await runScript(["sh", join(loose, "install.sh")], {}, loose);

  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain("does not know which repository to install from");
  expect(result.stderr).toContain("set XCSH_REPO=owner/name");
  expect(result.stderr).toContain("download install.sh from that repository's release page");
  expect(requested).toEqual([]);
  expect(existsSync(join(home, ".local", "bin", "xcsh"))).toBe(false);
});

test("a clone whose origin is not on GitHub is named in the error, without its password", async () => {
  const clone = fakeClone("https://me:hunter2@git.example.org/me/xcsh.git");
  const result = await runScript(["sh", join(clone, "scripts", "install.sh")], {});

  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain("the clone's origin remote (https://git.example.org/me/xcsh.git) is not a GitHub repository");
  expect(result.stderr).toContain("set XCSH_REPO=owner/name");
  expect(result.stderr).not.toContain("hunter2");
  expect(requested).toEqual([]);
});

test("piped into sh inside some clone, the unstamped script does not take that folder's remote for its own", async () => {
  const clone = fakeClone("https://github.com/users-own/project.git");
  const proc = Bun.spawn(["sh"], {
    env: { HOME: home, PATH: `${fakeGithubBin}:/usr/bin:/bin`, FAKE_GITHUB: server.url.href.replace(/\/$/, "") },
    cwd: clone,
    stdin: Bun.file(INSTALL_SH),
    stderr: "pipe",
    stdout: "pipe",
  });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);

  expect(code).not.toBe(0);
  expect(stderr).toContain("set XCSH_REPO=owner/name");
  expect(requested).toEqual([]);
});

test("XCSH_REPO that is not owner/name is refused before any download", async () => {
  for (const repo of ["https://github.com/o/r", "justaname", "o/r/extra", "o/r;rm"]) {
    const result = await install({ XCSH_RELEASE_URL: "", XCSH_REPO: repo });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(`XCSH_REPO must be owner/name`);
    expect(result.stderr).toContain(`(got '${repo}')`);
  }
  expect(requested).toEqual([]);
});

test("the release workflow's stamp makes the attached install.sh use the releasing repository, over a clone's origin", async () => {
  publishGoodRelease();
  const workflow = readFileSync(join(ROOT, ".github", "workflows", "release.yml"), "utf8");
  const stampLine = workflow.split("\n").find((line) => line.includes("DEFAULT_REPO="));
  expect(stampLine).toBeDefined();
  const stamp = stampLine!.replace(/^\s*run:\s*/, "");
  // The workflow runs it at the root of its checkout, which is a clone with some origin.
  const clone = fakeClone("https://github.com/clone-owner/clone-xcsh.git");
  mkdirSync(join(clone, "dist"));
  const stamped = Bun.spawnSync(["sh", "-c", stamp], { cwd: clone, env: { PATH: "/usr/bin:/bin", GITHUB_REPOSITORY: "releasing-owner/xcsh" } });
  expect(stamped.exitCode).toBe(0);
  const script = readFileSync(join(clone, "dist", "install.sh"), "utf8");
  expect(script.match(/^DEFAULT_REPO=.*$/gm)).toEqual(['DEFAULT_REPO="releasing-owner/xcsh"']);

  const result = await runScript(["sh", join(clone, "dist", "install.sh")], {});
  expect(result.code).toBe(0);
  expect(result.stdout).toContain("Using the releases of releasing-owner/xcsh (the release this script came from)");
  expect(requested).toEqual(latest("releasing-owner/xcsh"));

  // Piped from curl, as the release's own copy may be, it still knows its repository.
  requested.length = 0;
  const piped = Bun.spawn(["sh"], {
    env: { HOME: home, PATH: `${fakeGithubBin}:/usr/bin:/bin`, FAKE_GITHUB: server.url.href.replace(/\/$/, "") },
    cwd: home,
    stdin: Bun.file(join(clone, "dist", "install.sh")),
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await piped.exited).toBe(0);
  expect(requested).toEqual(latest("releasing-owner/xcsh"));
});

test("the source's own install.sh is unstamped: it names no repository it would have to guess", () => {
  expect(readFileSync(INSTALL_SH, "utf8").match(/^DEFAULT_REPO=.*$/gm)).toEqual(['DEFAULT_REPO=""']);
});

test("no install command in the docs asks the reader to fill in an owner", () => {
  const files = ["README.md", "scripts/install.sh", ...readdirSync(join(ROOT, "docs")).filter((name) => name.endsWith(".md")).map((name) => join("docs", name))];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    expect({ file, placeholders: text.match(/github\.com[/:]OWNER\b|github:OWNER\b|\bOWNER\/xcsh\b/g) ?? [] }).toEqual({ file, placeholders: [] });
  }
});

test("README's links to the latest release resolve on GitHub from the rendered README", () => {
  // GitHub rewrites a README's relative links against the file's blob address
  // (/<owner>/<repo>/blob/<branch>/README.md), on the repository's front page too.
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const links = [...readme.matchAll(/\]\((\.\.\/\.\.\/releases\/[^)\s]*)\)/g)].map((match) => match[1]!);
  expect(links).toContain("../../releases/latest/download/install.sh");
  for (const link of links) {
    expect(new URL(link, "https://github.com/some-owner/some-repo/blob/main/README.md").pathname).toStartWith("/some-owner/some-repo/releases/");
  }
});
