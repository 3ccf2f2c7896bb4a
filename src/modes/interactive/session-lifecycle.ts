/**
 * The session behind the terminal UI, from opening to closing. It is opened after
 * the first frame, with the extensions' dialogs, widgets and errors drawn in the TUI;
 * closed at exit (session_shutdown, then its MCP servers); and replaced when /resume
 * picks a session recorded in another folder. Such a session runs where it was
 * recorded, as in pi 1.6.0: its tools, AGENTS.md, project settings and extensions are
 * that project's, and a project that needs trust asks for it as at start (the command
 * line's --trust-project named the first folder, not this one). The old
 * session's extensions get session_shutdown (reason "resume") first; if the new one
 * cannot open, they start again and the old session goes on. When the recorded folder
 * is gone the person chooses, as in pi: continue here (asked again next time), fork
 * it into this folder (a new session; the original is kept), or cancel — at start too,
 * when `--session` or `--continue` named such a session (cancel then exits).
 */
import { existsSync, rmSync } from "node:fs";
import type { AgentSession } from "../../core/agent-session.ts";
import type { SessionChoice } from "../../core/create-session.ts";
import { MissingSessionCwdError } from "../../core/session-cwd.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import type { RunOptions } from "../../core/run-options.ts";
import { SessionManager } from "../../session/session-manager.ts";
import { createSessionFromArgs, type SessionFromArgs } from "../session-from-args.ts";
import type { App } from "./app.ts";
import { selectDialog } from "./dialogs.ts";
import type { TuiExtensionUI } from "./extension-ui.ts";
import { shortenHome } from "./footer.ts";

/** How a session other than the command line's opens. */
export interface OpenHow {
  /** In the folder xcsh was started in, whatever the session recorded, under the command line's trust flags (the start-up answer to a session whose folder is gone). */
  here?: boolean;
  /** The session file it replaces (a /resume into another folder): extensions' session_start says "resume" and names it. */
  replacing?: string;
}

/** Opens a session as the command line says, or as `sessions` says (a /resume pick). */
export type OpenSession = (sessions?: SessionChoice, how?: OpenHow) => Promise<SessionFromArgs>;

/** What the lifecycle needs of the application beyond what commands see. */
export interface SessionOwner extends App {
  /** Shows `session` from now on: its events, footer, header and conversation. */
  attach(session: AgentSession, extensions: ExtensionSystem | undefined): void;
}

export function sessionOpener(args: RunOptions, app: SessionOwner, ui: TuiExtensionUI, hostApi: () => Promise<Record<string, unknown>>): OpenSession {
  return (sessions, { here = false, replacing }: OpenHow = {}) =>
    // --trust-project / --no-trust-project spoke of the folder xcsh was started in: another
    // project's trust is its remembered decision, the setting, or the question.
    createSessionFromArgs(sessions && !here ? { ...args, trustProject: undefined } : args, {
      requireApiKey: false,
      openWithoutAnyKey: true,
      quietLoadWarnings: true,
      ...(here ? { cwd: process.cwd() } : {}),
      ...(sessions && !here ? { startCause: { reason: "resume" as const, ...(replacing ? { previousSessionFile: replacing } : {}) } } : {}),
      // A picked file; new sessions (/new) then go where the command line says (--session-dir) or that project's default.
      ...(sessions ? { sessions: { sessionDir: args.sessionDir, ...sessions } } : {}),
      extensions: {
        mode: "tui",
        ui,
        hostApi,
        // Said while the session opens, kept under its history when it is drawn (ConversationView.rebuild).
        reportError: (report) => app.say(`✗ Extension ${shortenHome(report.extensionPath)} failed (${report.event})`, report.error, "error"),
        notice: (line) => app.say(line, "", "warning"),
        onShutdownRequested: () => app.exit(0),
        onCustomEntry: (entry) => app.conversation.addCustomEntry(entry),
        // /new, /fork, /resume here, /reload: the old generation's widgets, statuses, header… go (pi 1.6.0).
        onExtensionsReplaced: () => app.surface.resetExtensionParts(),
      },
    });
}

/** What loading the session found wrong: said in the conversation. */
export function showLoadWarnings(app: App, created: SessionFromArgs): void {
  for (const warning of created.session.sessionManager.getLoadWarnings()) app.say(`! ${warning}`, "", "warning");
}

/** At exit: the run stops, extensions get session_shutdown, the MCP servers end. */
export async function closeSession(session: AgentSession, extensions: ExtensionSystem | undefined): Promise<void> {
  if (session.isStreaming) await session.abort();
  await extensions?.shutdown();
  await session.mcp?.close();
}

/** /resume of `path`, recorded in `recordedCwd`, which is not the folder this session works in. */
export async function resumeRecordedElsewhere(app: SessionOwner, open: OpenSession, path: string, recordedCwd: string): Promise<void> {
  if (!existsSync(recordedCwd)) return resumeWithoutItsFolder(app, path, recordedCwd);
  const old = app.session;
  const previous = old.sessionManager.getSessionFile();
  if (await old.hooks?.beforeSwitch("resume", path)) return app.say("An extension kept the current session", "", "warning");
  await old.abort();
  await old.hooks?.sessionWillBeReplaced("resume", path);
  // What the old session's extensions put on the screen goes with them (pi 1.6.0).
  app.surface.resetExtensionParts();
  app.sessionOpening();
  let created: SessionFromArgs;
  try {
    created = await open({ session: path }, { replacing: previous });
  } catch (error) {
    await old.hooks?.sessionReplaced("resume", previous);
    return app.say(`✗ Cannot open the session in ${shortenHome(recordedCwd)}; this one goes on`, (error as Error).message, "error");
  }
  await old.mcp?.close();
  app.attach(created.session, created.extensions);
  showLoadWarnings(app, created);
  app.say(`Resumed ${shortenHome(path)} in ${shortenHome(created.session.cwd)}, where it was recorded`, "", "accent");
}

/** The in-process switch: the session file changes, the folder stays. False when an extension kept the current one. */
async function switchHere(app: App, path: string, done: string): Promise<boolean> {
  app.sessionOpening();
  const outcome = await app.session.navigation.switchSession(path);
  if (outcome.cancelled) {
    app.say("An extension kept the current session", "", "warning");
    return false;
  }
  app.redraw(true);
  app.say(done, "", "accent");
  return true;
}

/** pi's question about a session whose folder is gone: continue or fork in `here`, or undefined to cancel. */
async function askWithoutItsFolder(app: App, recordedCwd: string, here: string): Promise<"continue" | "fork" | undefined> {
  const picked = await selectDialog(app.surface, `The session's folder no longer exists: ${shortenHome(recordedCwd)}`, [
    { value: "continue", label: `Continue in ${shortenHome(here)} (asked again next time)` },
    { value: "fork", label: `Fork into ${shortenHome(here)} (a new session; the original is kept)` },
    { value: "cancel", label: "Cancel" },
  ]);
  return picked?.value === "continue" || picked?.value === "fork" ? picked.value : undefined;
}

/**
 * The first session, as the command line asks. A `--session` or `--continue` whose recorded
 * folder is gone asks first: continue it in the folder xcsh was started in, fork it there
 * (stored like any new session of that folder), or cancel — undefined, and xcsh exits.
 */
export async function openFirstSession(app: App, open: OpenSession, args: RunOptions): Promise<{ created: SessionFromArgs; said?: string } | undefined> {
  try {
    return { created: await open() };
  } catch (error) {
    if (!(error instanceof MissingSessionCwdError)) throw error;
    const { sessionFile, sessionCwd, launchCwd } = error.issue;
    const choice = await askWithoutItsFolder(app, sessionCwd, launchCwd);
    if (choice === undefined) return undefined;
    const kept = { sessionDir: args.sessionDir, name: args.name };
    const created = await open(choice === "continue" ? { ...kept, session: sessionFile } : { ...kept, fork: sessionFile }, { here: true });
    const said =
      choice === "continue"
        ? `Resumed ${shortenHome(sessionFile)} in ${shortenHome(launchCwd)} (its folder is gone)`
        : `Forked into a new session ${created.session.sessionManager.getSessionId()} in ${shortenHome(launchCwd)}; ${shortenHome(sessionFile)} is kept`;
    return { created, said };
  }
}

async function resumeWithoutItsFolder(app: App, path: string, recordedCwd: string): Promise<void> {
  const here = shortenHome(app.cwd);
  const picked = await askWithoutItsFolder(app, recordedCwd, app.cwd);
  if (picked === "continue") {
    await switchHere(app, path, `Resumed ${shortenHome(path)} in ${here} (its folder is gone)`);
    return;
  }
  if (picked !== "fork") return app.say("Resume cancelled", "", "muted");
  let fork: SessionManager;
  try {
    fork = SessionManager.forkFrom(path, app.cwd, app.session.sessionManager.getSessionDir());
  } catch (error) {
    return app.say("✗ Cannot fork the session", (error as Error).message, "error");
  }
  const file = fork.getSessionFile()!;
  // Kept from switching: no copy is left behind.
  if (!(await switchHere(app, file, `Forked into a new session ${fork.getSessionId()} in ${here}; ${shortenHome(path)} is kept`))) rmSync(file, { force: true });
}
