/**
 * /resume: a picker over saved sessions, this project's first; Tab switches
 * to every project's. In it (keys by pi's action ids, see keymap.ts): Ctrl+R
 * renames the selected session (a session_info entry appended to its file,
 * as /name does), Ctrl+D deletes its file after a yes (never the session in
 * use), Ctrl+S cycles the order (threaded: forks under the session they came
 * from; recent; fuzzy: best match first), Ctrl+N shows named sessions only,
 * Ctrl+P shows file paths. A search matches name, first message and folder
 * fuzzily; `"a phrase"` or `re:<pattern>` search the messages' text (of a big
 * session, its first and last messages: lists read only heads and tails).
 * Another project's session runs in its own folder (session-lifecycle.ts). Each row
 * ends with the id's shortest unique start; a search of hex digits finds ids that
 * start so, and `/resume <id prefix>` opens such a session without the picker.
 */
import { uniqueIdPrefixes } from "../../../session/id-prefix.ts";
import { unlinkSync } from "node:fs";
import { resolve } from "node:path";
import { loadPiTui } from "../../../extensions/tui-helpers.ts";
import { SessionManager } from "../../../session/session-manager.ts";
import { listAllSessions, listSessions } from "../../../session/session-list.ts";
import type { SessionInfo } from "../../../session/types.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { shortenHome } from "../footer.ts";
import { keysOf, matches } from "../keymap.ts";
import { Picker, showPicker, type PickerRow } from "../picker.ts";
import { age, oneLine } from "./text.ts";

type Scope = "folder" | "all";
const SORTS = ["threaded", "recent", "fuzzy"] as const;
type Sort = (typeof SORTS)[number];

interface ResumeState {
  scope: Scope;
  sort: Sort;
  namedOnly: boolean;
  showPath: boolean;
  folder: SessionInfo[];
  all: SessionInfo[] | undefined;
}

/** Sessions in tree order: each fork right after the session it was forked from, indented. */
function threaded(sessions: SessionInfo[]): { info: SessionInfo; depth: number }[] {
  const byPath = new Set(sessions.map((info) => resolve(info.path)));
  const children = new Map<string, SessionInfo[]>();
  const roots: SessionInfo[] = [];
  for (const info of sessions) {
    const parent = info.parentSessionPath ? resolve(info.parentSessionPath) : undefined;
    if (parent && byPath.has(parent) && parent !== resolve(info.path)) children.set(parent, [...(children.get(parent) ?? []), info]);
    else roots.push(info);
  }
  const out: { info: SessionInfo; depth: number }[] = [];
  const seen = new Set<string>();
  const walk = (info: SessionInfo, depth: number) => {
    if (seen.has(info.path)) return;
    seen.add(info.path);
    out.push({ info, depth });
    for (const child of children.get(resolve(info.path)) ?? []) walk(child, depth + 1);
  };
  for (const root of roots) walk(root, 0);
  return out;
}

/** Rows for the search text; `current` is the session in use. */
function sessionRows(app: App, state: ResumeState, query: string, current: string | undefined): PickerRow[] {
  const { fuzzyFilter } = loadPiTui();
  let sessions = (state.scope === "all" ? (state.all ?? []) : state.folder).filter((info) => (info.messageCount > 0 || info.name) && (!state.namedOnly || info.name));
  const text = query.trim();
  const phrase = /^"(.+)"$/.exec(text)?.[1];
  const regex = text.startsWith("re:") ? safeRegExp(text.slice(3)) : undefined;
  if (looksLikeIdPrefix(text) && sessions.some((info) => info.id.startsWith(text.toLowerCase()))) sessions = sessions.filter((info) => info.id.startsWith(text.toLowerCase()));
  else if (phrase) sessions = sessions.filter((info) => `${info.name ?? ""} ${info.allMessagesText}`.toLowerCase().includes(phrase.toLowerCase()));
  else if (text.startsWith("re:")) sessions = regex ? sessions.filter((info) => regex.test(`${info.name ?? ""}\n${info.allMessagesText}`)) : [];
  else if (text) {
    const matched = fuzzyFilter(sessions, text, (info) => `${info.name ?? ""} ${info.firstMessage} ${info.cwd}`);
    sessions = state.sort === "fuzzy" ? matched : sessions.filter((info) => matched.includes(info));
  }
  const ordered = state.sort === "threaded" && !text ? threaded(sessions) : sessions.map((info) => ({ info, depth: 0 }));
  // Each id by its shortest unique start (ids are time ordered: 8 characters often are not enough).
  const prefixes = uniqueIdPrefixes([...state.folder, ...(state.all ?? [])].map((info) => info.id));
  return ordered.map(({ info, depth }) => {
    const title = oneLine(info.name ? `${info.name} — ${info.firstMessage}` : info.firstMessage, 200);
    const where = state.showPath ? shortenHome(info.path) : state.scope === "all" ? shortenHome(info.cwd) : "";
    const mark = info.path === current ? " (this session)" : "";
    return {
      id: info.path,
      text: `${depth ? `${"  ".repeat(depth - 1)}└ ` : ""}${title}${mark}`,
      right: [where, `${info.messageCountEstimated ? "~" : ""}${info.messageCount} msg`, age(info.modified), prefixes.get(info.id)].filter(Boolean).join(" · "),
    };
  });
}

/** Hex digits and dashes, as a session id starts: searched as an id prefix, not fuzzily. */
function looksLikeIdPrefix(text: string): boolean {
  return /^[0-9a-f]{4,}[0-9a-f-]*$/i.test(text);
}

/**
 * `/resume <id prefix>`: the one session whose id starts so (this folder's, then every
 * project's), resumed without the picker; several are listed by their shortest unique starts.
 */
async function resumeById(app: App, prefix: string): Promise<void> {
  const manager = app.session.sessionManager;
  const wanted = prefix.toLowerCase();
  const every = [...(await listSessions(manager.getSessionDir())), ...(await listAllSessions())];
  const byPath = new Map(every.map((info) => [info.path, info]));
  const found = [...byPath.values()].filter((info) => info.id.startsWith(wanted));
  if (found.length === 0) return app.say(`✗ No session id starts with "${prefix}"`, "/resume without an id lists the sessions", "error");
  if (found.length > 1) {
    const prefixes = uniqueIdPrefixes(found.map((info) => info.id));
    const lines = found.slice(0, 10).map((info) => `${prefixes.get(info.id)}  ${oneLine(info.name ?? info.firstMessage, 60)}`);
    return app.say(`✗ ${found.length} sessions start with "${prefix}"`, `give more of the id:\n${lines.join("\n")}`, "error");
  }
  await openSession(app, found[0]!);
}

/** Switches to `picked`; one recorded in another folder runs there (pi 1.6.0). */
async function openSession(app: App, picked: SessionInfo): Promise<void> {
  if (picked.path === app.session.sessionManager.getSessionFile()) return app.say("Already in this session", "", "muted");
  if (picked.cwd && resolve(picked.cwd) !== resolve(app.cwd)) return app.resumeElsewhere(picked.path, picked.cwd);
  app.sessionOpening();
  const outcome = await app.session.navigation.switchSession(picked.path);
  if (outcome.cancelled) return app.say("An extension kept the current session", "", "warning");
  app.redraw(true);
  app.say(`Resumed ${shortenHome(picked.path)}`, "", "accent");
}

function safeRegExp(source: string): RegExp | undefined {
  try {
    return new RegExp(source, "i");
  } catch {
    return undefined;
  }
}

/** Every project's sessions, plus this folder's when it lives outside the config root (--session-dir). */
async function loadAll(state: ResumeState): Promise<SessionInfo[]> {
  const all = await listAllSessions();
  const known = new Set(all.map((info) => info.path));
  return [...all, ...state.folder.filter((info) => !known.has(info.path))].sort((a, b) => b.modified.getTime() - a.modified.getTime());
}

async function rename(app: App, picker: Picker, state: ResumeState, info: SessionInfo): Promise<void> {
  const name = (await picker.ask("New name (enter to save, esc to cancel):", info.name ?? ""))?.trim();
  if (!name) return;
  try {
    if (info.path === app.session.sessionManager.getSessionFile()) {
      app.session.setSessionName(name);
      app.refreshHeader();
    } else SessionManager.open(info.path).appendSessionInfo(name);
    for (const list of [state.folder, state.all ?? []]) for (const each of list) if (each.path === info.path) each.name = name;
    picker.flash(`Renamed to "${name}"`);
  } catch (error) {
    picker.flash(`Cannot rename: ${(error as Error).message}`);
  }
  picker.refresh(info.path);
}

async function remove(app: App, picker: Picker, state: ResumeState, info: SessionInfo): Promise<void> {
  if (info.path === app.session.sessionManager.getSessionFile()) return picker.flash("Cannot delete the session in use");
  if (!(await picker.confirm(`Delete "${oneLine(info.name ?? info.firstMessage, 40)}"?`))) return;
  try {
    unlinkSync(info.path);
  } catch (error) {
    return picker.flash(`Cannot delete: ${(error as Error).message}`);
  }
  state.folder = state.folder.filter((each) => each.path !== info.path);
  state.all = state.all?.filter((each) => each.path !== info.path);
  picker.flash("Deleted the session file");
  picker.refresh();
}

async function resume(app: App): Promise<void> {
  const manager = app.session.sessionManager;
  const current = manager.getSessionFile();
  const folder = await listSessions(manager.getSessionDir());
  const state: ResumeState = { scope: "folder", sort: "threaded", namedOnly: false, showPath: false, folder, all: undefined };
  // Nothing else here to resume: start with every project's.
  if (!folder.some((info) => info.path !== current && info.messageCount > 0)) {
    state.scope = "all";
    state.all = await loadAll(state);
  }
  const keymap = () => app.keymap;
  const key = (id: string) => keysOf(app.keymap, id) || "unbound";
  const picked = await showPicker<SessionInfo | undefined>(app.surface.replaceEditor, (settle) => {
    const find = (row: PickerRow | undefined) => [...state.folder, ...(state.all ?? [])].find((info) => info.path === row?.id);
    const picker: Picker = new Picker({
      theme: app.surface.theme,
      keymap,
      height: () => Math.max(4, Math.min(15, app.surface.tui.terminal.rows - 14)),
      title: () => (state.scope === "all" ? "Resume a session (all projects)" : "Resume a session (this folder)"),
      status: () => `${state.scope === "folder" ? "◉ this folder ○ all" : "○ this folder ◉ all"} · ${state.namedOnly ? "named" : "all names"} · ${state.sort}`,
      hints: () => [
        `tab this folder/all · ${key("app.session.toggleSort")} sort · ${key("app.session.toggleNamedFilter")} named · ${key("app.session.togglePath")} paths · ${key("app.session.rename")} rename · ${key("app.session.delete")} delete`,
        `enter resume · esc close · "phrase" or re:<pattern> search every message`,
      ],
      rows: (query) => sessionRows(app, state, query, current),
      onKey: (data, self) => {
        const { matchesKey } = loadPiTui();
        const info = find(self.selected());
        if (matchesKey(data, "tab")) {
          state.scope = state.scope === "folder" ? "all" : "folder";
          if (state.scope === "all" && !state.all) {
            void loadAll(state).then((all) => {
              state.all = all;
              self.refresh();
              app.surface.tui.requestRender();
            });
          }
          self.refresh();
          return true;
        }
        if (matches(app.keymap, data, "app.session.toggleSort")) state.sort = SORTS[(SORTS.indexOf(state.sort) + 1) % SORTS.length]!;
        else if (matches(app.keymap, data, "app.session.toggleNamedFilter")) state.namedOnly = !state.namedOnly;
        else if (matches(app.keymap, data, "app.session.togglePath")) state.showPath = !state.showPath;
        else if (matches(app.keymap, data, "app.session.rename")) {
          if (info) void rename(app, self, state, info).then(() => app.surface.tui.requestRender());
        } else if (matches(app.keymap, data, "app.session.delete") || (matches(app.keymap, data, "app.session.deleteNoninvasive") && self.query === "")) {
          if (info) void remove(app, self, state, info).then(() => app.surface.tui.requestRender());
        } else return false;
        self.refresh();
        return true;
      },
      onPick: (row) => settle(find(row)),
      onCancel: () => settle(undefined),
    });
    return picker;
  });
  if (!picked) return;
  await openSession(app, picked);
}

export const resumeCommand: BuiltinCommand = {
  name: "resume",
  description: "Resume a saved session (this folder's or any project's; rename, delete)",
  argumentHint: "[id prefix]",
  run: (app, args) => (args.trim() ? resumeById(app, args.trim()) : resume(app)),
};
