/**
 * The built-in project-trust decision (seed 003 `project_trust`). A project that ships
 * code — `.xcsh/extensions`, or project settings that run code, pick the model, move the
 * user's sessions or loosen the sandbox (PROJECT_KEYS_NEEDING_TRUST) — must be trusted
 * before that code loads and those settings apply. Extensions' `project_trust` handlers
 * are asked first, elsewhere; when none decides, this resolves: the --trust-project / --no-trust-project flag,
 * then the decision remembered in trust.json, then `defaultProjectTrust` from the *global*
 * settings (default "ask"; a project file must never choose its own trust).
 *
 * "ask" means: ask the person if there is one; print and json modes have nobody to ask,
 * so they carry on untrusted and print untrustedProjectNotice once on stderr.
 * Everything here is a pure decision except projectNeedsTrust, which looks at the folder.
 */
import { inertText } from "../tools/inert-text.ts";
import { getProjectConfigDir, getSettingsPath } from "../config/paths.ts";
import { PROJECT_KEYS_NEEDING_TRUST, projectKeysAwaitingTrust, TRUST_GATED_PROJECT_KEYS, type ProjectTrustSetting, type TrustReason } from "../config/settings.ts";
import { hasProjectExtensions } from "./discovery.ts";

export type TrustSetting = ProjectTrustSetting;
export type BuiltinTrustOutcome = "trusted" | "denied" | "ask";

/**
 * Whether the project has anything that would run code or take the user's say, and so
 * needs a trust decision. `globalSettings` is the user's file, against which the project's
 * `sandbox` is judged (a sandbox the project only tightens needs no trust).
 */
export function projectNeedsTrust(cwd: string, projectSettings: Record<string, unknown>, globalSettings: Record<string, unknown> = {}): boolean {
  return projectKeysAwaitingTrust(projectSettings, globalSettings).length > 0 || hasProjectExtensions(cwd);
}

export interface BuiltinTrustInput {
  /** --trust-project → true, --no-trust-project → false; absent when neither was given. */
  cliTrust?: boolean;
  /** The decision remembered in trust.json for this project. */
  remembered?: boolean;
  /** `defaultProjectTrust` from the global settings file. */
  setting?: TrustSetting;
}

/** The first that speaks decides: the command line, then the remembered decision, then the setting. */
export function resolveBuiltinTrust(input: BuiltinTrustInput): BuiltinTrustOutcome {
  if (input.cliTrust !== undefined) return input.cliTrust ? "trusted" : "denied";
  if (input.remembered !== undefined) return input.remembered ? "trusted" : "denied";
  if (input.setting === "trust") return "trusted";
  if (input.setting === "deny") return "denied";
  return "ask";
}

export interface SkippedProjectCode {
  /** Whether `.xcsh/extensions` held extensions that were not loaded. */
  extensions: boolean;
  /** Project settings keys left out (from loadSettingsWithTrust's ignoredProjectKeys). */
  settingsKeys: readonly string[];
  /** Project MCP config files whose servers were not started. */
  mcpFiles?: readonly string[];
}

/** `sandbox.mode` → `sandbox`. */
const topKey = (key: string): string => key.split(".")[0]!;
/** Whether a (possibly dotted) settings key is one that waits for trust; global-only keys are not. */
const isGated = (key: string): boolean => Object.hasOwn(PROJECT_KEYS_NEEDING_TRUST, topKey(key));

/** How the notice says why a key waits, by its reason. */
const REASON_WORDS: Record<TrustReason, string> = {
  "runs code": "run code",
  "picks the model": "pick the model",
  "moves your data": "move your sessions",
  "loosens the sandbox": "loosen the sandbox",
};

/** `settings a, b from <file> (they run code or pick the model)`: the keys and why each kind waits. */
function describeSettings(keys: readonly string[], configDir: string): string {
  const reasons = [...new Set(keys.flatMap((key) => (isGated(key) ? [PROJECT_KEYS_NEEDING_TRUST[topKey(key)]!] : [])))];
  const why = reasons.map((reason) => REASON_WORDS[reason]);
  const joined = why.length > 1 ? `${why.slice(0, -1).join(", ")} or ${why.at(-1)}` : (why[0] ?? "");
  return `settings ${keys.join(", ")} from ${configDir}/settings.json${joined ? ` (they ${joined})` : ""}`;
}

/** What an untrusted project holds, named: the parts of the notice and of the trust question. */
function skippedParts(cwd: string, skipped?: SkippedProjectCode): string[] {
  const configDir = getProjectConfigDir(cwd);
  const parts: string[] = [];
  if (!skipped || skipped.extensions) parts.push(`extensions in ${configDir}/extensions`);
  const keys = skipped ? skipped.settingsKeys.filter(isGated) : TRUST_GATED_PROJECT_KEYS;
  if (keys.length > 0) parts.push(describeSettings(keys, configDir));
  if (skipped?.mcpFiles && skipped.mcpFiles.length > 0) parts.push(`MCP servers from ${skipped.mcpFiles.join(" and ")}`);
  return parts;
}

/**
 * The one stderr line print and json modes show for an untrusted project: what was not
 * loaded or applied, and the two ways to trust it. Pass what was skipped to name it exactly.
 */
export function untrustedProjectNotice(cwd: string, skipped?: SkippedProjectCode): string {
  const parts = skippedParts(cwd, skipped);
  const what = parts.length > 0 ? parts.join(" and ") : `code from ${getProjectConfigDir(cwd)}`;
  // The folder's name is the repository's: inert, and on the one line the notice promises.
  return (
    `xcsh: not loading project ${inertText(what).replace(/\n/g, " ")}: the project is not trusted. ` +
    `Run with --trust-project to trust it for this run, or set "defaultProjectTrust": "trust" in ${getSettingsPath()} to trust every project.`
  );
}

/**
 * The one line the terminal UI shows when the project stays untrusted and nobody is asked
 * (--no-trust-project, a saved "not trusted", `defaultProjectTrust: "deny"`, an extension's
 * no, or the person's no): what waits, and the command that trusts it — /trust, which
 * counts from the next start. Inert, for the folder's name is the repository's.
 */
export function untrustedProjectLine(cwd: string, skipped: SkippedProjectCode): string {
  const parts = skippedParts(cwd, skipped);
  const what = parts.length > 0 ? parts.join(" and ") : `code from ${getProjectConfigDir(cwd)}`;
  return inertText(`This project is not trusted: not loading ${what}. Use /trust to save a trust decision, then restart xcsh.`).replace(/\n/g, " ");
}

/**
 * The body of the question interactive and RPC hosts are asked: what trusting the project would
 * load and apply. Its paths are the project's folder, whose name the repository may have chosen:
 * inert, colours included, so that no sequence in it can hide or restyle part of the question.
 */
export function trustQuestion(cwd: string, skipped: SkippedProjectCode): string {
  const parts = skippedParts(cwd, skipped);
  const what = parts.length > 0 ? parts.join("; ") : `code in ${getProjectConfigDir(cwd)}`;
  const later = skipped.settingsKeys.length > 0 ? " Settings apply from the next start." : "";
  return inertText(`${cwd} has ${what}. Trust this project and load them?${later}`);
}
