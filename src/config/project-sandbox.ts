/**
 * What an untrusted project's `sandbox` setting may still do: make the sandbox stricter,
 * never looser. Its `mode` counts when it walls commands in more than the user's own
 * settings do (off < workspace-write < read-only), its `network` when it lets commands
 * reach less ("allow" < a host list < "deny"; a host list only when every host is on the
 * user's list too). `writableRoots` always widens what commands may write, so it waits
 * for trust, like any part this file cannot judge. Pure: the two files' values in, the
 * part that applies and the dotted names of the parts left out back.
 *
 * The order of the modes is written here, not imported from src/sandbox/: config sits
 * below the sandbox, and the schema in settings.ts names the same three modes.
 */

/** How far each mode walls commands in. */
const MODE_STRICTNESS: Readonly<Record<string, number>> = { off: 0, "workspace-write": 1, "read-only": 2 };

export interface ProjectSandboxPart {
  /** The part of the project's `sandbox` that applies untrusted; undefined: nothing does. */
  kept?: Record<string, unknown>;
  /** Dotted names of the parts left out (`sandbox.writableRoots`, …). */
  ignored: string[];
}

/** The stricter-only part of an untrusted project's `sandbox`, judged against the user's. */
export function stricterSandboxPart(project: unknown, user: unknown): ProjectSandboxPart {
  if (project === undefined) return { ignored: [] };
  if (!isRecord(project)) return { ignored: ["sandbox"] };
  const mine = isRecord(user) ? user : {};
  const kept: Record<string, unknown> = {};
  const ignored: string[] = [];
  for (const [key, value] of Object.entries(project)) {
    const applies =
      key === "mode" ? modeIsStricter(value, mine.mode) : key === "network" ? networkIsStricter(value, mine.network) : key === "writableRoots" && Array.isArray(value) && value.length === 0;
    if (applies) kept[key] = value;
    else ignored.push(`sandbox.${key}`);
  }
  return { ...(Object.keys(kept).length > 0 ? { kept } : {}), ignored };
}

function modeIsStricter(project: unknown, user: unknown): boolean {
  const theirs = typeof project === "string" ? MODE_STRICTNESS[project] : undefined;
  const mine = (typeof user === "string" ? MODE_STRICTNESS[user] : undefined) ?? MODE_STRICTNESS.off;
  return theirs !== undefined && theirs >= mine;
}

/** The user's network is "deny" when they set none: that is what a sandboxed mode starts from. */
function networkIsStricter(project: unknown, user: unknown): boolean {
  const mine = user ?? "deny";
  if (project === "deny") return true;
  if (project === "allow") return mine === "allow";
  if (!isHostList(project)) return false;
  if (mine === "allow") return true;
  return isHostList(mine) && project.every((host) => mine.includes(host));
}

function isHostList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((entry) => typeof entry === "string");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
