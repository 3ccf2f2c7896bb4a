/**
 * Commands that move between sessions or report on this one: /new, /fork,
 * /clone, /name, /session, /export, /copy, /reload, /quit. (/resume, /tree and
 * /hotkeys have files of their own.)
 */
import type { App, BuiltinCommand } from "../app.ts";
import { copyText } from "../copy-text.ts";
import { inputDialog, selectDialog } from "../dialogs.ts";
import { shortenHome } from "../footer.ts";
import { oneLine } from "./text.ts";

async function fork(app: App): Promise<void> {
  const messages = app.session.navigation.forkableMessages();
  if (messages.length === 0) return app.say("Nothing to fork from yet: no user message on this branch", "", "muted");
  const picked = await selectDialog(
    app.surface,
    "Fork from a message (a new session with the history before it)",
    messages.map((message) => ({ value: message.entryId, label: oneLine(message.text) })).reverse(),
    { searchable: messages.length > 8 },
  );
  if (!picked) return;
  app.sessionOpening();
  const outcome = await app.session.navigation.fork(picked.value);
  if (outcome.cancelled) return app.say("An extension cancelled the fork", "", "warning");
  app.redraw(true);
  app.editor.setText(outcome.text);
  app.say("Forked into a new session; the message is in the editor", "", "accent");
}

function stats(app: App): void {
  const s = app.session.getSessionStats();
  const usage = s.contextUsage;
  const lines = [
    `File: ${s.sessionFile ? shortenHome(s.sessionFile) : "(not saved)"}`,
    `Id: ${s.sessionId}`,
    ...(app.session.sessionName ? [`Name: ${app.session.sessionName}`] : []),
    `Messages: ${s.userMessages} user, ${s.assistantMessages} assistant, ${s.toolCalls} tool calls (${s.totalMessages} total)`,
    `Tokens: ${s.tokens.input.toLocaleString()} in, ${s.tokens.output.toLocaleString()} out, ${s.tokens.cacheRead.toLocaleString()} cache read, ${s.tokens.cacheWrite.toLocaleString()} cache write`,
    `Cost: $${s.cost.toFixed(4)}`,
    // Several models (a virtual model's routes, or switches): what each one's answers cost.
    ...(Object.keys(s.costByModel).length > 1 ? Object.entries(s.costByModel).map(([model, cost]) => `  ${model}: $${cost.toFixed(4)}`) : []),
    ...(usage ? [`Context: ${usage.tokens === null ? "?" : usage.tokens.toLocaleString()} of ${usage.contextWindow.toLocaleString()} tokens${usage.percent === null ? "" : ` (${usage.percent}%)`}`] : []),
  ];
  app.conversation.notice("Session", lines.join("\n"), "accent");
}

/** The last answer's markdown, through the desktop's clipboard program and/or OSC 52 (copy-text.ts). */
async function copyLastAnswer(app: App): Promise<void> {
  const text = app.session.getLastAssistantText();
  if (!text) return app.say("No answer to copy yet", "", "muted");
  const outcome = await copyText(text, { writeTerminal: (sequence) => app.surface.tui.terminal.write(sequence) });
  if (!outcome.ok) return app.say("✗ Not copied", outcome.reason, "error");
  app.say(`Copied the last answer (${text.length.toLocaleString()} characters) through ${outcome.via}`, "", "accent");
}


export const sessionCommands: BuiltinCommand[] = [
  {
    name: "new",
    description: "Start a new session",
    run: async (app) => {
      app.sessionOpening();
      const outcome = await app.session.navigation.newSession();
      if (outcome.cancelled) return app.say("An extension kept the current session", "", "warning");
      app.redraw(true);
      app.say("New session", "", "accent");
    },
  },
  { name: "fork", description: "Fork a new session from an earlier message", run: fork },
  {
    name: "clone",
    description: "Copy this branch into a new session",
    run: async (app) => {
      app.sessionOpening();
      const outcome = await app.session.navigation.clone();
      if (outcome.cancelled) return app.say("An extension cancelled the clone", "", "warning");
      app.redraw(true);
      app.say("Cloned into a new session", "", "accent");
    },
  },
  {
    name: "name",
    description: "Name this session",
    argumentHint: "<name>",
    run: async (app, args) => {
      const name = args.trim() || (await inputDialog(app.surface, "Session name", "a short name", {}, app.session.sessionName ?? ""));
      if (!name?.trim()) return;
      app.session.setSessionName(name);
      app.footer.refresh();
      app.say(`Session name: ${name.trim()}`, "", "accent");
    },
  },
  { name: "session", description: "Show this session's file and statistics", run: stats },
  {
    name: "export",
    description: "Write this session as HTML (or .jsonl)",
    argumentHint: "[file]",
    run: async (app, args) => {
      const { exportOpenSession } = await import("../../../export/export-session.ts");
      const { path } = exportOpenSession(app.session.sessionManager, args.trim() || undefined, app.cwd);
      app.say(`Exported to ${shortenHome(path)}`, "", "accent");
    },
  },
  { name: "copy", description: "Copy the last answer to the clipboard", run: copyLastAnswer },
  {
    name: "reload",
    description: "Reload extensions, skills, templates, themes and keybindings.json",
    run: async (app) => {
      app.reloadKeymap();
      app.reloadThemes();
      if (!app.extensions) return app.say("Reloaded keybindings.json and themes; no extension is loaded", "", "muted");
      await app.extensions.reload();
      app.say("Reloaded extensions, keybindings.json and themes", "", "accent");
    },
  },
  { name: "quit", description: "Exit xcsh", run: (app) => app.exit(0) },
];
