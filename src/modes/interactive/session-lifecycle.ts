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
 * it into this folder (a new session; the original is kept), or cancel.
 */
import { existsSync, rmSync } from "node:fs";
import type { AgentSession } from "../../core/agent-session.ts";
import type { SessionChoice } from "../../core/create-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import type { RunOptions } from "../../core/run-options.ts";
import { SessionManager } from "../../session/session-manager.ts";
import { createSessionFromArgs, type SessionFromArgs } from "../session-from-args.ts";
import type { App } from "./app.ts";
import { selectDialog } from "./dialogs.ts";
import type { TuiExtensionUI } from "./extension-ui.ts";
import { shortenHome } from "./footer.ts";

/** Opens a session as the command line says, or as `sessions` says (a /resume pick). */
export type OpenSession = (sessions?: SessionChoice) => Promise<SessionFromArgs>;

/** What the lifecycle needs of the application beyond what commands see. */
export interface SessionOwner extends App {
  /** Shows `session` from now on: its events, footer, header and conversation. */
  attach(session: AgentSession, extensions: ExtensionSystem | undefined): void;
}

/**
 * Extension failures reported while a session opens (an extension that does not load):
 * attaching the session redraws the conversation, which would wipe them, so they are said
 * once it is attached (showLoadWarnings), or at once when the session cannot open.
 */
const saidWhileOpening = new WeakMap<App, [string, string, string][]>();

export function sessionOpener(args: RunOptions, app: SessionOwner, ui: TuiExtensionUI, hostApi: () => Promise<Record<string, unknown>>): OpenSession {
  let opening: [string, string, string][] | undefined;
  const sayFailure = (label: string, detail: string) => (opening ? opening.push([label, detail, "error"]) : app.say(label, detail, "error"));
  return async (sessions) => {
    const said: [string, string, string][] = (opening = []);
    try {
      const created = await open(sessions);
      saidWhileOpening.set(app, said);
      return created;
    } catch (error) {
      for (const [label, detail, color] of said) app.say(label, detail, color);
      throw error;
    } finally {
      opening = undefined;
    }
  };

  function open(sessions: SessionChoice | undefined): Promise<SessionFromArgs> {
    // --trust-project / --no-trust-project spoke of the folder xcsh was started in: another
    // project's trust is its remembered decision, the setting, or the question.
    return createSessionFromArgs(sessions ? { ...args, trustProject: undefined } : args, {
      requireApiKey: false,
      openWithoutAnyKey: true,
      quietLoadWarnings: true,
      // A picked file; new sessions (/new) then go where the command line says (--session-dir) or that project's default.
      ...(sessions ? { sessions: { sessionDir: args.sessionDir, ...sessions } } : {}),
      extensions: {
        mode: "tui",
        ui,
        hostApi,
        reportError: (report) => sayFailure(`✗ Extension ${shortenHome(report.extensionPath)} failed (${report.event})`, report.error),
        notice: (line) => app.say(line, "", "warning"),
        onShutdownRequested: () => app.exit(0),
        onCustomEntry: (entry) => app.conversation.addCustomEntry(entry),
      },
    });
  }
}

/** What loading the session found wrong: said in the conversation. */
export function showLoadWarnings(app: App, created: SessionFromArgs): void {
  for (const [label, detail, color] of saidWhileOpening.get(app) ?? []) app.say(label, detail, color);
  saidWhileOpening.delete(app);
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
  let created: SessionFromArgs;
  try {
    created = await open({ session: path });
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
  const outcome = await app.session.navigation.switchSession(path);
  if (outcome.cancelled) {
    app.say("An extension kept the current session", "", "warning");
    return false;
  }
  app.redraw();
  app.say(done, "", "accent");
  return true;
}

async function resumeWithoutItsFolder(app: App, path: string, recordedCwd: string): Promise<void> {
  const here = shortenHome(app.cwd);
  const picked = await selectDialog(app.surface, `The session's folder no longer exists: ${shortenHome(recordedCwd)}`, [
    { value: "continue", label: `Continue in ${here} (asked again next time)` },
    { value: "fork", label: `Fork into ${here} (a new session; the original is kept)` },
    { value: "cancel", label: "Cancel" },
  ]);
  if (picked?.value === "continue") {
    await switchHere(app, path, `Resumed ${shortenHome(path)} in ${here} (its folder is gone)`);
    return;
  }
  if (picked?.value !== "fork") return app.say("Resume cancelled", "", "muted");
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
