/**
 * scripts/install.sh against a release served over loopback HTTP, as a user's
 * `curl … | sh` would meet it: the right binary for this machine lands in
 * ~/.local/bin only when its checksum matches SHA256SUMS.
 */
import { afterAll, afterEach, beforeAll, beforeEach, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Server } from "bun";
import { hostTarget } from "../../scripts/build-binaries.ts";

const INSTALL_SH = join(import.meta.dir, "..", "..", "scripts", "install.sh");
const HOST_ASSET = `xcsh-${hostTarget()!.name}`;
/** Stands in for a release binary: answers --version like the real one. */
const FAKE_BINARY = '#!/bin/sh\necho "xcsh 9.9.9 (fake release)"\n';

let releaseDir: string;
let home: string;
let server: Server<undefined>;
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

async function install(env: Record<string, string> = {}) {
  const proc = Bun.spawn(["sh", INSTALL_SH], {
    env: { HOME: home, PATH: "/usr/local/bin:/usr/bin:/bin", SHELL: "/bin/bash", XCSH_RELEASE_URL: server.url.href, ...env },
    cwd: home,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

beforeAll(() => {
  releaseDir = mkdtempSync(join(tmpdir(), "xcsh-release-"));
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const name = decodeURIComponent(new URL(request.url).pathname.slice(1));
      requested.push(name);
      const file = Bun.file(join(releaseDir, name));
      return (await file.exists()) ? new Response(file) : new Response("not found", { status: 404 });
    },
  });
});
afterAll(async () => {
  await server.stop(true);
  rmSync(releaseDir, { recursive: true, force: true });
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
