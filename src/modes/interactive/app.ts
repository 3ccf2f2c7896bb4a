/**
 * What the built-in commands and key handlers may use of the running
 * application: the session and its extensions, the views, the dialogs, and a
 * few actions (redraw from the session, submit, exit). The shell in
 * interactive-mode.ts implements it; commands never reach past it.
 */
import type { KeybindingsManager } from "@earendil-works/pi-tui";
import type { AgentSession } from "../../core/agent-session.ts";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import type { ConversationView } from "./conversation.ts";
import type { Footer } from "./footer.ts";
import type { Surface } from "./extension-ui.ts";
import type { EditorLike } from "./editor-host.ts";

export interface App {
  readonly session: AgentSession;
  readonly extensions: ExtensionSystem | undefined;
  readonly conversation: ConversationView;
  readonly footer: Footer;
  readonly surface: Surface;
  /** The editor on screen (an extension may have replaced the built-in one). */
  readonly editor: EditorLike;
  /** The folder the session works in (a resumed session's recorded one). */
  readonly cwd: string;
  readonly version: string;
  /** The keys by action id (defaults and keybindings.json). */
  readonly keymap: KeybindingsManager;
  /** The models Ctrl+P cycles through, as chosen in /scoped-models for this session (undefined: the enabledModels setting). */
  modelScope: string[] | undefined;
  /**
   * Draws the conversation again from the session (after /new, /resume, /tree, …) and refreshes header and footer.
   * `opening`: a session has just opened, and the notices shown since `sessionOpening()` (its extensions'
   * session_start) stay under its history instead of being wiped.
   */
  redraw(opening?: boolean): void;
  /** A session is about to open (or be switched to): notices from now on belong to it. */
  sessionOpening(): void;
  /** Header and footer again (after a model or name change). */
  refreshHeader(): void;
  /** Runs a built-in command line ("/tree"); false when it is not one. */
  runCommand(line: string): Promise<boolean>;
  /** Reads keybindings.json again (/reload); its warnings are shown. */
  reloadKeymap(): void;
  /** Reads the theme setting and theme files again (/reload); their problems are shown. */
  reloadThemes(): void;
  /** A line in the conversation. */
  say(label: string, detail?: string, color?: string): void;
  exit(code?: number): void;
  /**
   * Resumes the session file `path`, recorded in another folder, there: a new session of
   * that project replaces this one (session-lifecycle.ts); a folder that is gone is asked about.
   */
  resumeElsewhere(path: string, recordedCwd: string): Promise<void>;
}

export interface BuiltinCommand {
  name: string;
  description: string;
  /** Shown after the name in completion: `[focus]`, `<name>`. */
  argumentHint?: string;
  run(app: App, args: string): Promise<void> | void;
}
