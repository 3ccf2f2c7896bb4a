/**
 * The sandbox as an ACP session config option ("sandbox"): the client shows the mode
 * commands run under (docs/security.md) and may make it stricter — off → workspace-write
 * → read-only — but never looser, so nothing a session runs can take the walls down.
 * The sandbox is xcsh's, not one session's: a change holds for every session this
 * process serves, and the option says so.
 */
import { RequestError, type SessionConfigOption } from "@agentclientprotocol/sdk";
import type { Settings } from "../../config/settings.ts";
import { commandPolicy, tightenSandbox } from "../../sandbox/active-policy.ts";
import { assertSandboxAvailable } from "../../sandbox/launcher.ts";
import { isSandboxMode, resolveCommandPolicy, SANDBOX_MODES } from "../../sandbox/policy.ts";

export const SANDBOX_OPTION_ID = "sandbox";

const DESCRIPTIONS = {
  off: "Commands run with your rights, as in a terminal",
  "workspace-write": "Commands write only in the project and the temp folder; network as settings say (default: none)",
  "read-only": "Commands write nothing; network as settings say (default: none)",
} as const;

export function sandboxOption(): SessionConfigOption {
  return {
    type: "select",
    id: SANDBOX_OPTION_ID,
    name: "Sandbox",
    description: "What commands may write and reach, for every session of this agent; it can be made stricter, not looser",
    category: "_sandbox",
    currentValue: commandPolicy().sandbox.mode,
    options: SANDBOX_MODES.map((mode) => ({ value: mode, name: mode, description: DESCRIPTIONS[mode] })),
  };
}

/** Applies the client's choice for a session in `cwd`; an invalid-params error says why one cannot be had. */
export function setSandboxOption(value: string, settings: Settings, cwd: string): void {
  if (!isSandboxMode(value)) throw RequestError.invalidParams(undefined, `unknown sandbox mode "${value}"; use one of: ${SANDBOX_MODES.join(", ")}`);
  try {
    const { sandbox } = resolveCommandPolicy(settings as unknown as Record<string, unknown>, value, cwd);
    assertSandboxAvailable(sandbox);
    tightenSandbox(sandbox);
  } catch (error) {
    throw RequestError.invalidParams(undefined, (error as Error).message);
  }
}
