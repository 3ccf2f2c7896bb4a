/**
 * A test home for sandboxed runs. It must live outside /tmp, which sandboxed commands may
 * write (a command could otherwise change the test's own files), and xcsh's temp folder —
 * writable inside the sandbox — is a folder in that home, beside the project.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, type ExtensionFixture } from "../support/extensions.ts";

export function createSandboxFixture(prefix: string): { base: string; fixture: ExtensionFixture } {
  const base = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), prefix));
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = base;
  let fixture: ExtensionFixture;
  try {
    fixture = createExtensionFixture();
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  fixture.home.env.TMPDIR = join(fixture.home.home, "tmp");
  mkdirSync(fixture.home.env.TMPDIR, { recursive: true });
  return { base, fixture };
}

/** Whether bubblewrap can start a sandbox here (installed, and allowed to create namespaces). */
export function bwrapWorks(): boolean {
  const bwrap = Bun.which("bwrap");
  if (!bwrap || process.platform !== "linux") return false;
  return Bun.spawnSync([bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]).exitCode === 0;
}
