/**
 * The project-trust decision of the extension system, taken once at start-up: the
 * `project_trust` handlers of the user and -e extensions decide first; when none does,
 * the built-in order (--trust-project, trust.json, defaultProjectTrust) resolves it
 * (src/extensions/project-trust.ts). "ask" with a person to ask (rpc, tui) is settled
 * later by askProjectTrust, in the background; print and json modes carry on untrusted
 * with one notice. Split from extension-system.ts so the decision reads on its own,
 * apart from the loading and generations that act on it.
 */
import { getAgentDir } from "../config/paths.ts";
import { projectKeysAwaitingTrust, readGlobalSettingsFile, readProjectSettingsObject } from "../config/settings.ts";
import { hasProjectExtensions } from "../extensions/discovery.ts";
import { projectNeedsTrust, resolveBuiltinTrust, trustQuestion, untrustedProjectLine, untrustedProjectNotice, type SkippedProjectCode } from "../extensions/project-trust.ts";
import type { ExtensionRunner } from "../extensions/runner.ts";
import { readTrustDecision, rememberTrustDecision } from "../extensions/trust-store.ts";
import type { ExtensionMode, ExtensionUIContext } from "../extensions/ui-types.ts";
import { existingFiles, projectMcpConfigPaths } from "../mcp/config-files.ts";

export interface TrustOptions {
  cwd: string;
  mode: ExtensionMode;
  ui: ExtensionUIContext;
  /** --trust-project / --no-trust-project. */
  cliTrust?: boolean;
  /** The project's MCP servers are in use (not --no-mcp): its MCP files need trust too. */
  projectMcp?: boolean;
  /** A line for the person running xcsh (stderr). */
  notice(line: string): void;
}

export interface TrustSettlement {
  trusted: boolean;
  /** Nobody decided and there is a person to ask: ask once the session is attached. */
  askLater: boolean;
  /** What the project holds that waits for trust (for the question and the notice). */
  skipped: SkippedProjectCode;
}

/** project_trust (user and -e extensions decide first), then --trust-project, trust.json, defaultProjectTrust. */
export async function settleProjectTrust(options: TrustOptions, runner: ExtensionRunner): Promise<TrustSettlement> {
  const { cwd } = options;
  const projectSettings = readSettingsOrEmpty(() => readProjectSettingsObject(cwd));
  const globalSettings = readSettingsOrEmpty(readGlobalSettingsFile);
  // Project MCP servers start programs too: they wait for the same decision (src/mcp/start.ts).
  const mcpFiles = options.projectMcp ? existingFiles(projectMcpConfigPaths(cwd)) : [];
  const needsTrust = projectNeedsTrust(cwd, projectSettings, globalSettings) || mcpFiles.length > 0;
  const skipped: SkippedProjectCode = { extensions: hasProjectExtensions(cwd), settingsKeys: projectKeysAwaitingTrust(projectSettings, globalSettings), mcpFiles };
  if (needsTrust && runner.hasHandlers("project_trust")) {
    const ui = options.ui;
    const trustContext = {
      cwd,
      mode: options.mode,
      hasUI: options.mode === "rpc" || options.mode === "tui",
      ui: { select: ui.select.bind(ui), confirm: ui.confirm.bind(ui), input: ui.input.bind(ui), notify: ui.notify.bind(ui) },
    };
    const decision = await runner.emit("project_trust", { type: "project_trust", cwd }, { context: trustContext });
    if (decision.trusted !== "undecided") {
      const trusted = decision.trusted === "yes";
      if (decision.remember) rememberProjectTrust(options, trusted);
      if (!trusted) tellTuiUntrusted(options, skipped);
      return { trusted, askLater: false, skipped };
    }
  }
  const outcome = resolveBuiltinTrust({
    cliTrust: options.cliTrust,
    remembered: readTrustDecision(getAgentDir(), cwd),
    setting: globalSettings.defaultProjectTrust as "ask" | "trust" | "deny" | undefined,
  });
  const trusted = outcome === "trusted";
  if (outcome !== "ask" || !needsTrust) {
    if (!trusted && needsTrust) tellTuiUntrusted(options, skipped);
    return { trusted, askLater: false, skipped };
  }
  if (options.mode === "rpc" || options.mode === "tui") return { trusted, askLater: true, skipped };
  options.notice(untrustedProjectNotice(cwd, skipped));
  return { trusted, askLater: false, skipped };
}

/** Asks the person (the RPC host or the TUI) and remembers the answer in trust.json. */
export async function askProjectTrust(options: TrustOptions, skipped: SkippedProjectCode): Promise<boolean> {
  const trusted = await options.ui.confirm("Trust this project?", trustQuestion(options.cwd, skipped));
  rememberProjectTrust(options, trusted);
  if (!trusted) tellTuiUntrusted(options, skipped);
  return trusted;
}

/**
 * In the terminal UI, a project left untrusted says so once, in the conversation: what waits
 * and that /trust saves the decision (pi 1.6.0 shows such a line too). Print and json modes
 * have their own stderr line; an RPC host is asked, and knows its answer.
 */
function tellTuiUntrusted(options: Pick<TrustOptions, "cwd" | "mode" | "notice">, skipped: SkippedProjectCode): void {
  if (options.mode === "tui") options.notice(untrustedProjectLine(options.cwd, skipped));
}

function rememberProjectTrust(options: Pick<TrustOptions, "cwd" | "notice">, trusted: boolean): void {
  const warning = rememberTrustDecision(getAgentDir(), options.cwd, trusted);
  if (warning) options.notice(`xcsh: ${warning}`);
}

/** A settings file read for a decision; a broken one is reported where settings load, and counts as empty here. */
export function readSettingsOrEmpty<T extends Record<string, unknown>>(read: () => T): T {
  try {
    return read();
  } catch {
    return {} as T;
  }
}
