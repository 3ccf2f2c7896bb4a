/**
 * The macOS launcher: a Seatbelt profile for `sandbox-exec -p <profile> -- <argv>`.
 * Everything is allowed but writing files (only in the writable roots and the devices
 * programs write to; the protected paths in them — layout.ts — stay read-only, the entry
 * itself included, so `.git` cannot be renamed or removed), reading xcsh's and
 * pi's config folders, and — with network "deny" — IP networking. In Seatbelt's
 * language the last matching rule wins, so each exception follows its rule.
 *
 * Written from Apple's profile language as the system's own profiles use it; it could
 * not be run where it was written (Linux), so docs/security.md marks it untested.
 * Paths are real paths: Seatbelt sees /private/tmp, never the /tmp symlink.
 */
import { existsSync, realpathSync } from "node:fs";
import { basename } from "node:path";
import type { SandboxLayout } from "./layout.ts";
import type { SandboxPolicy } from "./policy.ts";

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** A profile string literal. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

export function seatbeltProfile(policy: SandboxPolicy, layout: SandboxLayout): string {
  const lines = ["(version 1)", "(allow default)", "(deny file-write*)"];
  const writable = [
    ...layout.writableRoots.map((root) => `(subpath ${quote(real(root))})`),
    '(literal "/dev/null")',
    '(literal "/dev/zero")',
    '(literal "/dev/dtracehelper")',
    '(regex #"^/dev/tty")',
    '(regex #"^/dev/fd/")',
  ];
  lines.push(`(allow file-write* ${writable.join(" ")})`);
  // A path denied is denied whether it exists or not, so no placeholders are needed here; but a
  // missing `.git` may be made (`git init`), as on Linux, where it cannot be held without one.
  for (const path of layout.protectedPaths) {
    if (basename(path) === ".git" && !existsSync(path)) continue;
    lines.push(`(deny file-write* (subpath ${quote(real(path))}))`);
  }
  for (const path of layout.ownFolders) lines.push(`(deny file-write* (subpath ${quote(real(path))}))`);
  for (const path of layout.hiddenPaths) lines.push(`(deny file-read* file-write* (subpath ${quote(real(path))}))`);
  // A list of hosts is refused on macOS before a command runs (launcher.ts); deny is the safe reading.
  if (policy.network !== "allow") {
    lines.push('(deny network-outbound (remote ip "*:*"))', '(deny network-inbound (local ip "*:*"))', '(deny network-bind (local ip "*:*"))');
  }
  return lines.join("\n");
}

/** The sandbox-exec arguments (without the program) that put `argv` under `policy`. */
export function seatbeltArgs(policy: SandboxPolicy, layout: SandboxLayout, argv: readonly string[]): string[] {
  return ["-p", seatbeltProfile(policy, layout), "--", ...argv];
}
