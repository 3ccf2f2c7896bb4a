/**
 * The header on top of the transcript: version, model, the folder the session
 * works in and its name, then one line of key hints. Drawn before the session
 * exists ("starting…"), and again whenever one of those changes. Settings'
 * quietStartup leaves it empty once the session is there (pi's quiet start: the
 * footer still names the model). An extension's setHeader replaces it on screen.
 */
import type { Text, TUI } from "@earendil-works/pi-tui";
import type { AgentSession } from "../../core/agent-session.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import { shortenHome } from "./footer.ts";
import type { UiTheme } from "./theme.ts";
import { inertText } from "../../tools/inert-text.ts";

export interface HeaderSource {
  tui: TUI;
  theme: () => UiTheme;
  version: string;
  cwd: () => string;
  session: () => AgentSession | undefined;
}

export class SessionHeader {
  readonly component: Text;
  /** quietStartup: nothing of ours once the session is there. */
  quiet = false;

  constructor(private readonly source: HeaderSource) {
    this.component = new (loadPiTui().Text)("", 1, 0);
  }

  update(): void {
    const { tui, theme: currentTheme, version, cwd } = this.source;
    if (this.quiet) {
      this.component.setText("");
      tui.requestRender();
      return;
    }
    const theme = currentTheme();
    const session = this.source.session();
    const parts = [theme.bold(theme.fg("accent", `xcsh ${version}`))];
    if (session) parts.push(theme.fg("muted", `${session.model.provider}/${session.model.id}`));
    else parts.push(theme.fg("dim", "starting…"));
    // A folder's name (a cloned repository's) and a session's name may hold escape sequences: drawn inert.
    const inline = (text: string) => inertText(text).replace(/\n/g, " ");
    parts.push(theme.fg("dim", inline(shortenHome(cwd()))));
    if (session?.sessionName) parts.push(theme.fg("muted", inline(session.sessionName)));
    const hint = theme.fg("dim", "/ commands · @ files · ! shell · esc abort · ctrl+c twice to exit · /hotkeys");
    this.component.setText(`${parts.join(theme.fg("dim", " · "))}\n${hint}`);
    tui.requestRender();
  }
}
