/**
 * The command policy of this process: set once the run's settings are known, read by
 * every place that starts a program or writes a file for the model or the user.
 *
 * Process-wide on purpose. pi's extension API lets extensions build their own bash
 * tool (`createBashTool`), local operations (`createLocalBashOperations`) and run
 * `exec` — none of which can be handed the policy. A sandbox that a differently built
 * tool could step around is no sandbox, so they all read it here.
 *
 * Before a run sets it (extensions loading, `--list-models`), children still lose
 * xcsh's credentials: the default policy filters them. The sandbox mode is fixed at
 * start: a later call may not loosen it, so nothing running inside can switch it off.
 */
import { childEnvironment } from "./child-environment.ts";
import { DEFAULT_COMMAND_POLICY, type CommandPolicy, type SandboxMode, type SandboxPolicy } from "./policy.ts";

let active: CommandPolicy = DEFAULT_COMMAND_POLICY;
let sandboxFixed = false;

export function commandPolicy(): CommandPolicy {
  return active;
}

/**
 * The environment of a program started for the model or the user (the bash tool, `!cmd` /
 * RPC `bash`, `pi.exec`, a local MCP server): xcsh's, through settings' shellEnv, and with
 * secret-named variables hidden too while a sandbox is on (child-environment.ts).
 * `sandboxed` false: the program runs outside the sandbox (an MCP server let out of it).
 * One function for all of them, and for the sandbox started ahead of its command
 * (warm-sandbox.ts), so a warm and a fresh sandbox hold the same variables.
 */
export function commandEnvironment(sandboxed = true): NodeJS.ProcessEnv {
  return childEnvironment(process.env, active.shellEnv, { hideSecretNames: sandboxed && active.sandbox.mode !== "off" });
}

/**
 * Sets the policy. The shell environment may change (a settings reload); the sandbox is
 * taken from the first call that sets one other than off, and kept from then on — a later
 * session in another folder (ACP serves several) adds its writable folders to it.
 */
export function setCommandPolicy(policy: CommandPolicy): void {
  let sandbox = policy.sandbox;
  if (sandboxFixed) {
    const writableRoots = active.sandbox.mode === "workspace-write" ? [...new Set([...active.sandbox.writableRoots, ...policy.sandbox.writableRoots])] : [];
    sandbox = { ...active.sandbox, writableRoots };
  }
  if (sandbox.mode !== "off") sandboxFixed = true;
  active = { sandbox, shellEnv: policy.shellEnv };
}

/** How much a mode holds back: a sandbox may be made stricter while it runs, never looser. */
const STRICTNESS: Record<SandboxMode, number> = { off: 0, "workspace-write": 1, "read-only": 2 };

/**
 * Makes the sandbox `sandbox` from now on (a client's choice while xcsh runs: ACP's
 * "sandbox" option); refuses, saying why, one that would hold commands back less than
 * the current one — nothing running inside may switch the walls off.
 */
export function tightenSandbox(sandbox: SandboxPolicy): void {
  const current = active.sandbox.mode;
  if (STRICTNESS[sandbox.mode] < STRICTNESS[current]) {
    throw new Error(`the sandbox is "${current}" and can only be made stricter while xcsh runs, not "${sandbox.mode}"; start xcsh with --sandbox ${sandbox.mode} for that`);
  }
  if (sandbox.mode === current) return;
  active = { ...active, sandbox };
  sandboxFixed = true;
}
