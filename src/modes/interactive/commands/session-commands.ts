/**
 * Commands that move between sessions or report on this one: /new, /resume
 * (this project's sessions, by name and first message), /fork, /clone, /name,
 * /session, /export, /copy, /reload, /hotkeys, /quit.
 */
import { listSessions } from "../../../session/session-list.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { inputDialog, selectDialog } from "../dialogs.ts";
import { shortenHome } from "../footer.ts";

function age(date: Date): string {
  const seconds = Math.max(0, (Date.now() - date.getTime()) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.round(seconds / 60)}m ago`;
  if (seconds < 86400) return `${Math.round(seconds / 3600)}h ago`;
  return `${Math.round(seconds / 86400)}d ago`;
}

function oneLine(text: string, max = 70): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

async function resume(app: App): Promise<void> {
  const manager = app.session.sessionManager;
  const current = manager.getSessionFile();
  const sessions = (await listSessions(manager.getSessionDir())).filter((info) => info.path !== current && info.messageCount > 0);
  if (sessions.length === 0) return app.say("No other session of this project to resume", "", "muted");
  sessions.sort((a, b) => b.modified.getTime() - a.modified.getTime());
  const picked = await selectDialog(
    app.surface,
    "Resume a session",
    sessions.map((info) => ({
      value: info.path,
      label: oneLine(info.name ? `${info.name} — ${info.firstMessage}` : info.firstMessage || "(no messages)"),
      description: `${age(info.modified)} · ${info.messageCount} msg`,
    })),
    { searchable: true },
  );
  if (!picked) return;
  const outcome = await app.session.navigation.switchSession(picked.value);
  if (outcome.cancelled) return app.say("An extension kept the current session", "", "warning");
  app.redraw();
  app.say(`Resumed ${shortenHome(picked.value)}`, "", "accent");
}

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
  const outcome = await app.session.navigation.fork(picked.value);
  if (outcome.cancelled) return app.say("An extension cancelled the fork", "", "warning");
  app.redraw();
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
    ...(usage ? [`Context: ${usage.tokens === null ? "?" : usage.tokens.toLocaleString()} of ${usage.contextWindow.toLocaleString()} tokens${usage.percent === null ? "" : ` (${usage.percent}%)`}`] : []),
  ];
  app.conversation.notice("Session", lines.join("\n"), "accent");
}

/** OSC 52: the terminal (and tmux, SSH) puts the text on the clipboard; no clipboard program needed. */
function copyLastAnswer(app: App): void {
  const text = app.session.getLastAssistantText();
  if (!text) return app.say("No answer to copy yet", "", "muted");
  const payload = Buffer.from(text, "utf8").toString("base64");
  app.surface.tui.terminal.write(`\x1b]52;c;${payload}\x07`);
  app.say(`Copied the last answer (${text.length.toLocaleString()} characters)`, "", "accent");
}

export const HOTKEYS = [
  ["Enter", "send (while the agent works: steer)"],
  ["Alt+Enter", "queue a follow-up while the agent works"],
  ["Shift+Enter / Ctrl+J", "new line"],
  ["Esc", "abort the run (queued messages come back to the editor)"],
  ["Alt+↑", "take queued messages back into the editor"],
  ["Ctrl+C", "clear the editor; twice to exit"],
  ["Ctrl+D", "exit (empty editor)"],
  ["↑ / ↓", "prompt history"],
  ["Tab", "complete a path"],
  ["@", "attach a project file"],
  ["/", "commands"],
  ["!cmd / !!cmd", "run a shell command (!! keeps it out of the context)"],
  ["Ctrl+O", "expand tool output"],
  ["Ctrl+T", "show thinking"],
  ["Shift+Tab", "cycle the thinking level"],
  ["Ctrl+L", "select a model"],
  [process.platform === "win32" ? "Alt+V" : "Ctrl+V", "attach the clipboard's image"],
];

export const sessionCommands: BuiltinCommand[] = [
  {
    name: "new",
    description: "Start a new session",
    run: async (app) => {
      const outcome = await app.session.navigation.newSession();
      if (outcome.cancelled) return app.say("An extension kept the current session", "", "warning");
      app.redraw();
      app.say("New session", "", "accent");
    },
  },
  { name: "resume", description: "Resume another session of this project", run: resume },
  { name: "fork", description: "Fork a new session from an earlier message", run: fork },
  {
    name: "clone",
    description: "Copy this branch into a new session",
    run: async (app) => {
      const outcome = await app.session.navigation.clone();
      if (outcome.cancelled) return app.say("An extension cancelled the clone", "", "warning");
      app.redraw();
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
    description: "Reload extensions, skills and templates",
    run: async (app) => {
      if (!app.extensions) return app.say("No extension is loaded; nothing to reload", "", "muted");
      await app.extensions.reload();
      app.say("Reloaded extensions", "", "accent");
    },
  },
  {
    name: "hotkeys",
    description: "List the keys",
    run: (app) => {
      const width = Math.max(...HOTKEYS.map(([key]) => key!.length));
      app.conversation.notice("Keys", HOTKEYS.map(([key, what]) => `${key!.padEnd(width)}  ${what}`).join("\n"), "accent");
    },
  },
  { name: "quit", description: "Exit xcsh", run: (app) => app.exit(0) },
];
