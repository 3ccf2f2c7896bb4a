/**
 * /trust: the person saves a trust decision for the project in the folder the session
 * works in, in `~/.xcsh/agent/trust.json`, as pi 1.6.0's /trust does. It shows the folder,
 * the decision saved for it and whether this session trusts it, and offers "Trust" and
 * "Do not trust". The choice counts from the next start, as pi says: extensions and
 * settings already loaded (or left out) stay as they are until then.
 *
 * Only a person at the keyboard can save through it. The choice is a key press in a
 * dialog of xcsh's own (nothing else answers it: it is not an extension dialog, and RPC
 * or print modes have no /trust), and the choice it opens on keeps things as they are —
 * the saved decision, else this session's — so an Enter that arrives with the command
 * (typed by a script, or a line an extension put in the editor) changes nothing. The
 * command takes no arguments, so no line can decide without the dialog. Unlike pi there
 * is no "trust the parent folder": xcsh's decisions belong to one folder each
 * (docs/security.md).
 */
import { getAgentDir } from "../../../config/paths.ts";
import { inspectTrustDecision, rememberTrustDecision, trustKey } from "../../../extensions/trust-store.ts";
import { inertText } from "../../../tools/inert-text.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { selectDialog } from "../dialogs.ts";
import { shortenHome } from "../footer.ts";

const TRUST = "trust";
const DISTRUST = "distrust";

const decisionWords = (trusted: boolean | undefined): string => (trusted === undefined ? "none" : trusted ? "trusted" : "not trusted");

async function trust(app: App, args: string): Promise<void> {
  if (args.trim() !== "") return app.say("✗ /trust takes no arguments", "it asks which decision to save", "error");
  const agentDir = getAgentDir();
  const folder = trustKey(app.cwd);
  const saved = inspectTrustDecision(agentDir, folder);
  if (saved.warning) app.say(`! ${saved.warning}`, "", "warning");
  const trustedNow = app.extensions?.isProjectTrusted() ?? false;
  const keep = saved.trusted ?? trustedNow;
  const mark = (trusted: boolean) => (saved.trusted === trusted ? "✓ saved" : "");
  const items = [
    { value: TRUST, label: "Trust", description: mark(true) },
    { value: DISTRUST, label: "Do not trust", description: mark(false) },
  ];
  // The folder's name is the repository's: inert, so no sequence in it can hide or restyle a line.
  const message = [
    inertText(shortenHome(folder)),
    `Saved decision: ${decisionWords(saved.trusted)}`,
    `This session: ${trustedNow ? "trusted" : "not trusted"}`,
  ].join("\n");
  const picked = await selectDialog(app.surface, "Project trust", items, { message, initialIndex: keep ? 0 : 1, searchable: false });
  if (!picked) return;
  const trusted = picked.value === TRUST;
  const problem = rememberTrustDecision(agentDir, folder, trusted);
  // Read back: a warning may mean "saved, but the old file was broken" or "not saved at all".
  if (inspectTrustDecision(agentDir, folder).trusted !== trusted) return app.say("✗ The trust decision was not saved", problem ?? "", "error");
  if (problem) app.say(`! ${problem}`, "", "warning");
  app.say(
    `Saved trust decision: ${trusted ? "trusted" : "not trusted"}`,
    `for ${inertText(shortenHome(folder))}. Restart xcsh for this to take effect.`,
    "accent",
  );
}

export const trustCommand: BuiltinCommand = {
  name: "trust",
  description: "Save a project trust decision for the next start",
  run: trust,
};
