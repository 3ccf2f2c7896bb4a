/**
 * The Linux launcher: a command line that runs a program under bubblewrap (`bwrap`) as
 * the policy says. The whole file system is bound read-only; the writable roots are
 * bound again read-write, and the protected paths inside them (layout.ts: `.git`, `.xcsh/`,
 * `.pi/`, `.mcp.json`, a hard-linked `node_modules`) read-only once more — a mount point
 * cannot be renamed or removed either (EBUSY), so `.git` cannot be moved aside and
 * replaced; xcsh's and pi's config folders (API keys in models.json, auth.json, sessions)
 * are covered by an empty tmpfs, and so are the folders of /tmp that hold other programs'
 * Unix sockets (tmp-sockets.ts; a socket directly in /tmp gets /dev/null over it). xcsh's own
 * folder of full-output files is bound read-only, so no command can swap it for a symlink. Every command gets its own PID namespace, so nothing it
 * starts outlives it (the kernel kills the namespace with its first process) and it
 * cannot see xcsh's or anyone's processes; `--die-with-parent` ends it with xcsh.
 * Network "deny" is a network namespace of its own: no interface but loopback; so is a
 * list of hosts, whose only way out is the filtering proxy's Unix socket (network-proxy.ts),
 * its folder bound read-only so that no command can put another socket in its place.
 *
 * Pure but for checking which paths exist; finding and probing bwrap is in launcher.ts.
 */
import { existsSync, realpathSync } from "node:fs";
import type { SandboxPolicy } from "./policy.ts";
import type { SandboxLayout } from "./layout.ts";

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Real paths of the writable roots and hidden folders, resolved once per run: they are
 * fixed when the session starts, and each realpath costs ~30–40 µs (a lstat per component).
 * Not the protected paths inside the roots: a command may change what those lead to, so
 * they are resolved again (and checked to exist) before every command.
 */
const settledRealPaths = new Map<string, string>();
function settledReal(path: string): string {
  let resolved = settledRealPaths.get(path);
  if (resolved === undefined) {
    resolved = real(path);
    // Only a path that exists is settled; a missing one may appear (and be a symlink) later.
    if (resolved !== path || existsSync(path)) settledRealPaths.set(path, resolved);
  }
  return resolved;
}

/**
 * The bwrap arguments (without the program) that put `argv` under `policy`. `proxyFolder`:
 * the filtering proxy's folder, when the network is a list of hosts.
 */
export function bubblewrapArgs(policy: SandboxPolicy, layout: SandboxLayout, argv: readonly string[], proxyFolder?: string): string[] {
  const args = ["--die-with-parent", "--unshare-pid", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"];
  if (policy.network !== "allow") args.push("--unshare-net");
  if (policy.mode === "workspace-write") {
    for (const root of layout.writableRoots) {
      const path = settledReal(root);
      args.push("--bind-try", path, path);
    }
    for (const path of layout.protectedPaths) {
      if (!existsSync(path)) continue;
      const target = real(path);
      args.push("--ro-bind", target, target);
    }
  }
  for (const path of layout.hiddenPaths) {
    if (existsSync(path)) args.push("--tmpfs", settledReal(path));
  }
  // Other programs' sockets in /tmp (after the writable binds, which include /tmp). The filtering
  // proxy's folder, bound below, comes back even inside a folder hidden here.
  for (const folder of layout.hiddenSockets.folders) args.push("--tmpfs", folder);
  for (const socket of layout.hiddenSockets.files) args.push("--ro-bind", "/dev/null", socket);
  // After the writable binds: these folders lie in the temp folder, which they make writable.
  // A mount point cannot be renamed or removed, so a command cannot put a symlink in its place.
  for (const folder of layout.ownFolders) {
    if (!existsSync(folder)) continue;
    const target = real(folder);
    args.push("--ro-bind", target, target);
  }
  if (proxyFolder) args.push("--ro-bind", proxyFolder, proxyFolder);
  args.push("--chdir", layout.cwd, "--", ...argv);
  return args;
}
