/**
 * Puts a program under the active sandbox: returns the command line to spawn instead.
 * Off: the program as it is. Linux: bubblewrap, found on PATH and tried once (a bwrap
 * that cannot create namespaces fails here, saying why, not in every command's output).
 * macOS: sandbox-exec. Anywhere else, or without the program: an error that says what to
 * install — a command never runs unsandboxed because the sandbox could not start.
 * A network that is a list of hosts adds the relay (proxy-relay.ts) in front of the
 * command and starts the filtering proxy (network-proxy.ts) the first time; Linux only.
 */
import { existsSync, statSync } from "node:fs";
import { basename, dirname } from "node:path";
import { bubblewrapArgs } from "./bubblewrap.ts";
import { ownProgram, whichOwnProgram } from "./own-programs.ts";
import { commandPolicy } from "./active-policy.ts";
import { PLACEHOLDER_NAMES, sandboxLayout, type SandboxLayout } from "./layout.ts";
import { makePlaceholder } from "./placeholders.ts";
import { allowedHosts, type SandboxPolicy } from "./policy.ts";
import { seatbeltArgs } from "./seatbelt.ts";

/** The sandbox cannot run here; the message says what to do. */
export class SandboxUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxUnavailableError";
  }
}

const BWRAP_INSTALL =
  "Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap; Arch: pacman -S bubblewrap; Alpine: apk add bubblewrap)";

let bwrapChecked: { path: string } | { error: string } | undefined;

/** bwrap's path once it has been seen to start a sandbox; the reason otherwise. */
function checkedBwrap(policy: SandboxPolicy): string {
  if (!bwrapChecked) {
    // Not a PATH entry relative to the project: a bwrap the repository put there would be the sandbox.
    const path = whichOwnProgram("bwrap");
    if (!path) bwrapChecked = { error: `The sandbox (${policy.mode}) needs bubblewrap, and bwrap is not on PATH. ${BWRAP_INSTALL}, or run with --sandbox off.` };
    else {
      // A program of xcsh's own (own-programs.ts): `true` is looked up on an absolute-only PATH, from the home folder.
      const probe = Bun.spawnSync({
        ...ownProgram([path, "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]),
        stdin: "ignore",
        stdout: "ignore",
        stderr: "pipe",
      });
      bwrapChecked =
        probe.exitCode === 0
          ? { path }
          : {
              error:
                `The sandbox (${policy.mode}) could not start: ${path} failed with "${probe.stderr.toString().trim() || `exit code ${probe.exitCode}`}". ` +
                "bubblewrap needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also an AppArmor profile that allows bwrap them), or run with --sandbox off.",
            };
    }
  }
  if ("error" in bwrapChecked) throw new SandboxUnavailableError(bwrapChecked.error);
  return bwrapChecked.path;
}

/** Throws SandboxUnavailableError when the policy asks for a sandbox this machine cannot give. */
export function assertSandboxAvailable(policy: SandboxPolicy): void {
  if (policy.mode === "off") return;
  if (process.platform === "linux") checkedBwrap(policy);
  else if (process.platform === "darwin") {
    if (!Bun.which("sandbox-exec", { PATH: "/usr/bin" })) throw new SandboxUnavailableError(`The sandbox (${policy.mode}) needs /usr/bin/sandbox-exec, which is missing. Run with --sandbox off.`);
    if (allowedHosts(policy.network)) {
      throw new SandboxUnavailableError('settings sandbox.network: a list of hosts is supported on Linux only for now; on macOS use "deny" or "allow".');
    }
  } else throw new SandboxUnavailableError(`The sandbox (${policy.mode}) is not available on ${process.platform}: xcsh sandboxes with bubblewrap on Linux and sandbox-exec on macOS. Run with --sandbox off.`);
}

/**
 * bubblewrap can only keep read-only what exists: a project without `.xcsh/` could be given
 * one (settings, extensions) that runs unsandboxed at the next start. So each missing path of
 * PLACEHOLDER_NAMES in a writable root gets an empty folder first (placeholders.ts, removed
 * again when xcsh ends). A missing `.git` gets none: an empty one would make git look for a
 * repository above it. Seatbelt denies by path and needs none.
 */
function makeMissingPlaceholders(layout: SandboxLayout): void {
  for (const path of layout.protectedPaths) {
    if (!PLACEHOLDER_NAMES.includes(basename(path)) || existsSync(path) || !isDirectory(dirname(path))) continue;
    makePlaceholder(path);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** How this program is started again: the binary itself, or bun with the entry script when run from source. */
function selfCommand(): string[] {
  const script = process.argv[1];
  const fromSource = script !== undefined && !script.startsWith("/$bunfs") && /\.[cm]?[jt]s$/.test(script);
  return fromSource ? [process.execPath, script] : [process.execPath];
}

/** The command line that runs `argv` in `cwd` under the active policy. */
export function sandboxedArgv(argv: readonly string[], cwd: string, policy: SandboxPolicy = commandPolicy().sandbox): string[] {
  if (policy.mode === "off") return [...argv];
  assertSandboxAvailable(policy);
  const layout = sandboxLayout(policy, cwd);
  if (process.platform === "linux") {
    const bwrap = checkedBwrap(policy);
    makeMissingPlaceholders(layout);
    const hosts = allowedHosts(policy.network);
    if (!hosts) return [bwrap, ...bubblewrapArgs(policy, layout, argv)];
    // Loaded with the first command that needs it: nothing of the proxy at start-up otherwise.
    const { sessionNetworkProxy } = require("./network-proxy.ts") as typeof import("./network-proxy.ts");
    const proxy = sessionNetworkProxy(hosts);
    const relayed = [...selfCommand(), "--sandbox-relay", proxy.socketPath, proxy.key, "--", ...argv];
    return [bwrap, ...bubblewrapArgs(policy, layout, relayed, proxy.folder)];
  }
  return ["/usr/bin/sandbox-exec", ...seatbeltArgs(policy, layout, argv)];
}
