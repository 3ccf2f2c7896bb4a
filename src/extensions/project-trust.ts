/**
 * The built-in project-trust decision (seed 003 `project_trust`). A project that ships
 * code — `.xcsh/extensions`, or project settings that name code or a shell to run — must
 * be trusted before that code loads. Extensions' `project_trust` handlers are asked first,
 * elsewhere; when none decides, this resolves: the --trust-project / --no-trust-project flag,
 * then the decision remembered in trust.json, then `defaultProjectTrust` from the *global*
 * settings (default "ask"; a project file must never choose its own trust).
 *
 * "ask" means: ask the person if there is one; print and json modes have nobody to ask,
 * so they carry on untrusted and print untrustedProjectNotice once on stderr.
 * Everything here is a pure decision except projectNeedsTrust, which looks at the folder.
 */
import { getProjectConfigDir, getSettingsPath } from "../config/paths.ts";
import { CODE_RUNNING_PROJECT_KEYS as CODE_RUNNING_KEYS, type ProjectTrustSetting } from "../config/settings.ts";
import { hasProjectExtensions } from "./discovery.ts";

export type TrustSetting = ProjectTrustSetting;
export type BuiltinTrustOutcome = "trusted" | "denied" | "ask";

/** Project settings keys that run code or name code; left out of an untrusted project's settings. */
export const CODE_RUNNING_PROJECT_KEYS: readonly string[] = CODE_RUNNING_KEYS;

/** The code-running keys a project settings file actually sets (an empty list or string sets nothing). */
export function codeRunningKeysIn(projectSettings: Record<string, unknown>): string[] {
  return CODE_RUNNING_PROJECT_KEYS.filter((key) => setsSomething(projectSettings[key]));
}

/** Whether the project has anything that would run code, and so needs a trust decision. */
export function projectNeedsTrust(cwd: string, projectSettings: Record<string, unknown>): boolean {
  return codeRunningKeysIn(projectSettings).length > 0 || hasProjectExtensions(cwd);
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

/**
 * The one stderr line print and json modes show for an untrusted project: what was not
 * loaded and the two ways to trust it. Pass what was skipped to name it exactly.
 */
export function untrustedProjectNotice(cwd: string, skipped?: SkippedProjectCode): string {
  const configDir = getProjectConfigDir(cwd);
  const parts: string[] = [];
  if (!skipped || skipped.extensions) parts.push(`extensions in ${configDir}/extensions`);
  const keys = skipped ? skipped.settingsKeys.filter((key) => CODE_RUNNING_PROJECT_KEYS.includes(key)) : [];
  if (keys.length > 0) parts.push(`settings ${keys.join(", ")} from ${configDir}/settings.json`);
  else if (!skipped) parts.push(`code-running settings (${CODE_RUNNING_PROJECT_KEYS.join(", ")}) from ${configDir}/settings.json`);
  if (skipped?.mcpFiles && skipped.mcpFiles.length > 0) parts.push(`MCP servers from ${skipped.mcpFiles.join(" and ")}`);
  const what = parts.length > 0 ? parts.join(" and ") : `code from ${configDir}`;
  return (
    `xcsh: not loading project ${what}: the project is not trusted. ` +
    `Run with --trust-project to trust it for this run, or set "defaultProjectTrust": "trust" in ${getSettingsPath()} to trust every project.`
  );
}

function setsSomething(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (Array.isArray(value) || typeof value === "string") return value.length > 0;
  return true;
}
