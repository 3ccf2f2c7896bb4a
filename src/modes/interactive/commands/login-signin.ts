/**
 * A sign-in flow (GitHub Copilot's device code, OpenAI Codex's browser redirect) run
 * from /login: the flow is the one `xcsh auth login` runs; only its conversation with
 * the person differs. Its instructions (the code and address to open, the address to
 * authorize at) become lines in the transcript, a panel in the editor's place says it
 * is waiting and takes a pasted redirect address when the flow asks for one, and Esc
 * cancels the flow wherever it is. Copilot first asks for a GitHub Enterprise domain
 * (blank: github.com).
 */
import type { OAuthCredential } from "../../../auth/auth-file.ts";
import type { LoginTarget } from "../../../config/login-targets.ts";
import { signInProvider, type LoginIO, type LoginOptions } from "../../../auth/signin/providers.ts";
import type { App } from "../app.ts";
import { LoginPanel, withLoginPanel } from "./login-panel.ts";

const WAITING = "Follow the steps above; this waits until the provider answers.";

/** The credential the flow produced, or undefined when it was cancelled or failed (both said in the transcript). */
export async function runSignIn(app: App, target: LoginTarget, deviceId?: string): Promise<OAuthCredential | undefined> {
  const signIn = signInProvider(target.id);
  if (!signIn) return undefined;
  const cancel = new AbortController();
  const panel = new LoginPanel(() => app.surface.theme(), `Signing in to ${target.name}`, () => cancel.abort(), () => app.surface.tui.requestRender());
  const io: LoginIO = {
    say: (text) => app.say(text.trim(), "", "accent"),
    readLine: async () => {
      panel.setLines([WAITING, "If the browser runs on another machine, paste the address it was sent to here."]);
      const line = await panel.ask({ prompt: "address: " });
      panel.setLines([WAITING]);
      return line;
    },
    signal: cancel.signal,
  };
  try {
    return await withLoginPanel(app.surface.replaceEditor, panel, async () => {
      const options: LoginOptions = deviceId ? { deviceId } : {};
      if (target.id === "github-copilot") {
        panel.setLines(["Signing in to a GitHub Enterprise server? Enter its domain (ghe.example.com). Leave it blank for github.com."]);
        const domain = await panel.ask({ prompt: "domain: ", placeholder: "github.com" });
        if (cancel.signal.aborted || domain === undefined) throw new Error("Sign-in cancelled.");
        if (domain.trim()) options.enterpriseDomain = domain.trim();
      }
      panel.setLines([WAITING]);
      const flow = await signIn.loadFlow();
      return await flow.login(io, options);
    });
  } catch (error) {
    if (cancel.signal.aborted) app.say("Sign-in cancelled", "", "muted");
    else app.say(`✗ Sign-in to ${target.name} failed`, (error as Error).message, "error");
    return undefined;
  }
}
