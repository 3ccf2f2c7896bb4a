/**
 * What the sandbox allows, decided once per run from `--sandbox` and settings.json's
 * `sandbox` and `shellEnv` (pure: no I/O but reading paths given). The launchers
 * (bubblewrap.ts, seatbelt.ts) and the write guard turn it into effects.
 *
 *  - off (default): commands run with the user's rights, as in pi.
 *  - read-only: commands may read everything but write nothing (temp folder included).
 *  - workspace-write: commands may write inside the session's working folder, the temp
 *    folder and `writableRoots`; what xcsh, pi or git read there as configuration or code
 *    (`.git`, `.xcsh/`, `.pi/`, `.mcp.json`…: layout.ts) stays read-only, since writing it is
 *    running code later, unsandboxed.
 * `network` ("deny" by default) applies in both sandboxed modes: "allow", "deny", or a list
 * of hosts that commands reach through xcsh's filtering proxy (network-proxy.ts).
 */
import { isAbsolute, resolve } from "node:path";
import { expandHome } from "../config/paths.ts";
import { DEFAULT_SHELL_ENV, type ShellEnvPolicy } from "./child-environment.ts";
import { parseHostPattern, type HostPattern } from "./network-hosts.ts";

export const SANDBOX_MODES = ["off", "read-only", "workspace-write"] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/**
 * What commands may reach: everything, nothing (loopback included), or only the listed
 * hosts, through the filtering proxy, by programs that honour HTTP(S)_PROXY.
 */
export type NetworkPolicy = "allow" | "deny" | { allowHosts: readonly HostPattern[] };

/** The allow-list of a network policy, or undefined when it is "allow" or "deny". */
export const allowedHosts = (network: NetworkPolicy): readonly HostPattern[] | undefined => (typeof network === "object" ? network.allowHosts : undefined);

export interface SandboxPolicy {
  mode: SandboxMode;
  network: NetworkPolicy;
  /**
   * Absolute folders writable under workspace-write besides the temp folder: the session's
   * working folder first, then settings' `writableRoots`. Not the folder a command happens to
   * run in: an extension's exec or a spawn hook may pick any, and must not widen the walls.
   */
  writableRoots: string[];
  /**
   * Sockets, or folders of them, in the shared /tmp that commands may still reach (settings'
   * `tmpSockets`); every other one is hidden from them (tmp-sockets.ts). Absent: none.
   */
  tmpSockets?: readonly string[];
}

/** Everything xcsh applies to the programs it starts. */
export interface CommandPolicy {
  sandbox: SandboxPolicy;
  shellEnv: ShellEnvPolicy;
}

export const NO_SANDBOX: Readonly<SandboxPolicy> = Object.freeze({ mode: "off", network: "allow", writableRoots: [] });

export const DEFAULT_COMMAND_POLICY: Readonly<CommandPolicy> = Object.freeze({ sandbox: NO_SANDBOX, shellEnv: DEFAULT_SHELL_ENV });

export function isSandboxMode(value: unknown): value is SandboxMode {
  return typeof value === "string" && (SANDBOX_MODES as readonly string[]).includes(value);
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === "string") : []);

/**
 * The policy for a run. `cliMode` (--sandbox) wins over settings' `sandbox.mode`;
 * relative writableRoots are taken from `cwd`. Values the settings schema let through
 * but that cannot be applied throw an Error whose message names the setting.
 */
export function resolveCommandPolicy(settings: Readonly<Record<string, unknown>>, cliMode: string | undefined, cwd: string): CommandPolicy {
  return { sandbox: resolveSandbox(settings.sandbox, cliMode, cwd), shellEnv: resolveShellEnv(settings.shellEnv) };
}

function resolveSandbox(setting: unknown, cliMode: string | undefined, cwd: string): SandboxPolicy {
  const configured = isRecord(setting) ? setting : {};
  const mode = cliMode ?? configured.mode ?? "off";
  if (!isSandboxMode(mode)) throw new Error(`sandbox mode "${String(mode)}" is not one of ${SANDBOX_MODES.join(", ")}`);
  if (mode === "off") return NO_SANDBOX;
  const network = resolveNetwork(configured.network ?? "deny");
  const configuredRoots = strings(configured.writableRoots).map((root) => {
    const expanded = expandHome(root);
    return isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
  });
  const tmpSockets = strings(configured.tmpSockets).map((path) => resolve(cwd, expandHome(path)));
  return { mode, network, writableRoots: mode === "workspace-write" ? [...new Set([resolve(cwd), ...configuredRoots])] : [], ...(tmpSockets.length > 0 ? { tmpSockets } : {}) };
}

function resolveNetwork(setting: unknown): NetworkPolicy {
  if (setting === "deny" || setting === "allow") return setting;
  if (!Array.isArray(setting)) throw new Error(`settings sandbox.network must be "deny", "allow" or a list of hosts, not ${JSON.stringify(setting)}`);
  const entries = setting.map((entry) => {
    if (typeof entry !== "string") throw new Error(`settings sandbox.network: ${JSON.stringify(entry)} is not a host name (a string)`);
    return parseHostPattern(entry);
  });
  return { allowHosts: entries };
}

function resolveShellEnv(setting: unknown): ShellEnvPolicy {
  if (!isRecord(setting)) return DEFAULT_SHELL_ENV;
  const inherit = setting.inherit ?? "all";
  if (inherit !== "all" && inherit !== "core" && inherit !== "none") throw new Error(`settings shellEnv.inherit must be "all", "core" or "none", not ${JSON.stringify(inherit)}`);
  const set: Record<string, string> = {};
  if (isRecord(setting.set)) for (const [name, value] of Object.entries(setting.set)) if (typeof value === "string") set[name] = value;
  return { inherit, passthrough: strings(setting.passthrough), exclude: strings(setting.exclude), set };
}
