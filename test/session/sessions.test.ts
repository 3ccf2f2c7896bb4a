/** Working with several session files: new, branched, forked, listed, continued. */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { findMostRecentSession, getDefaultSessionDir, SessionManager } from "../../src/session/index.ts";
import { assistantMessage, describeMessage, makeTempDir, readJsonLines, userMessage, type TempDir } from "./support/helpers.ts";

let dir: TempDir;
let savedAgentDir: string | undefined;
beforeEach(() => {
  dir = makeTempDir();
  savedAgentDir = process.env.XCSH_CODING_AGENT_DIR;
  process.env.XCSH_CODING_AGENT_DIR = dir.join("agent");
});
afterEach(() => {
  if (savedAgentDir === undefined) delete process.env.XCSH_CODING_AGENT_DIR;
  else process.env.XCSH_CODING_AGENT_DIR = savedAgentDir;
  dir.cleanup();
});

describe("where sessions live", () => {
  test("one folder per working directory under the config root's sessions/", () => {
    expect(getDefaultSessionDir("/home/u/p")).toBe(join(dir.path, "agent", "sessions", "--home-u-p--"));
    expect(getDefaultSessionDir("/tmp/pi-scratch/proj", "/cfg")).toBe("/cfg/sessions/--tmp-pi-scratch-proj--");
    const session = SessionManager.create("/home/u/p");
    expect(session.getSessionDir()).toBe(join(dir.path, "agent", "sessions", "--home-u-p--"));
    session.appendMessage(userMessage("hi"));
    expect(existsSync(session.getSessionFile()!)).toBe(true);
  });
});

describe("new, branched and forked sessions", () => {
  test("newSession starts an empty session in the same folder, recording a parent session", () => {
    const session = SessionManager.create("/p", dir.path);
    session.appendMessage(userMessage("old"));
    const oldFile = session.getSessionFile()!;
    const oldId = session.getSessionId();

    const newFile = session.newSession({ parentSession: oldFile });
    expect(newFile).toBe(session.getSessionFile());
    expect(newFile).not.toBe(oldFile);
    expect(session.getSessionId()).not.toBe(oldId);
    expect(session.getEntries()).toEqual([]);
    expect(session.getLeafId()).toBeNull();
    session.appendMessage(userMessage("new"));
    expect(readJsonLines(newFile!)[0]).toMatchObject({ type: "session", version: 3, cwd: "/p", parentSession: oldFile });

    expect(session.newSession({ id: "my-own-id" })).toContain("_my-own-id.jsonl");
    expect(session.getHeader().parentSession).toBeUndefined();
    expect(SessionManager.inMemory().newSession()).toBeUndefined();
  });

  test("setSessionFile switches to another session", () => {
    const first = SessionManager.create("/project-one", dir.path);
    first.appendMessage(userMessage("in one"));
    const second = SessionManager.create("/project-two", dir.path);
    second.appendMessage(userMessage("in two"));
    second.setSessionFile(first.getSessionFile()!);
    expect(second.getSessionId()).toBe(first.getSessionId());
    expect(second.getCwd()).toBe("/project-one");
    expect(second.buildSessionContext().messages.map(describeMessage)).toEqual(["user: in one"]);
  });

  test("createBranchedSession copies the path to an entry into a new file, with its labels", () => {
    const session = SessionManager.create("/p", dir.path);
    const u1 = session.appendMessage(userMessage("u1"));
    const a1 = session.appendMessage(assistantMessage("a1"));
    session.appendMessage(userMessage("A"));
    session.branch(a1);
    session.appendMessage(userMessage("B"));
    session.appendLabelChange(u1, "start");
    const sourceFile = session.getSessionFile()!;
    const sourceId = session.getSessionId();

    const branchedFile = session.createBranchedSession(a1)!;
    expect(branchedFile).not.toBe(sourceFile);
    expect(session.getSessionFile()).toBe(branchedFile);
    expect(session.getSessionId()).not.toBe(sourceId);
    expect(session.getHeader().parentSession).toBe(sourceFile);
    expect(session.getLabel(u1)).toBe("start");

    const lines = readJsonLines(branchedFile);
    expect(lines.map((line) => line.type)).toEqual(["session", "message", "message", "label"]);
    expect(lines.slice(1, 3).map((line) => line.id)).toEqual([u1, a1]);
    expect(lines[3]).toMatchObject({ targetId: u1, label: "start", parentId: a1 });

    const reopened = SessionManager.open(branchedFile);
    expect(reopened.buildSessionContext().messages.map(describeMessage)).toEqual(["user: u1", "assistant: a1"]);
    expect(() => session.createBranchedSession("ffffffff")).toThrow("not found");
  });

  test("createBranchedSession in memory stays in memory", () => {
    const session = SessionManager.inMemory();
    session.appendMessage(userMessage("u1"));
    const a1 = session.appendMessage(assistantMessage("a1"));
    session.appendMessage(userMessage("u2"));
    expect(session.createBranchedSession(a1)).toBeUndefined();
    expect(session.getEntries()).toHaveLength(2);
  });

  test("forkFrom copies a session of another project into a new session of this one", () => {
    const source = SessionManager.create("/other-project", dir.join("other"));
    const u1 = source.appendMessage(userMessage("u1"));
    source.appendMessage(assistantMessage("a1"));
    source.branch(u1);
    source.appendMessage(userMessage("second branch"));

    const fork = SessionManager.forkFrom(source.getSessionFile()!, "/this-project", dir.join("mine"));
    expect(fork.getCwd()).toBe("/this-project");
    expect(fork.getSessionFile()!.startsWith(dir.join("mine"))).toBe(true);
    expect(fork.getHeader()).toMatchObject({ cwd: "/this-project", parentSession: source.getSessionFile() });
    expect(fork.getEntries()).toEqual(source.getEntries());
    expect(fork.getLeafId()).toBe(source.getLeafId());
    // Written at once, and independent of the source from then on.
    expect(SessionManager.open(fork.getSessionFile()!).getEntries()).toEqual(source.getEntries());
    fork.appendMessage(assistantMessage("only in the fork"));
    expect(SessionManager.open(source.getSessionFile()!).getEntries()).toHaveLength(3);
  });
});

describe("listing and continuing", () => {
  function writeSession(cwd: string, sessionDir: string | undefined, texts: string[], name?: string): SessionManager {
    const session = SessionManager.create(cwd, sessionDir);
    texts.forEach((text, index) => session.appendMessage(index % 2 ? assistantMessage(text) : userMessage(text)));
    if (name) session.appendSessionInfo(name);
    return session;
  }

  test("list describes each session of a folder, most recently active first, with progress", async () => {
    const older = writeSession("/p", dir.path, ["fix the bug", "done"]);
    const newer = writeSession("/p", dir.path, ["add a feature", "added", "and tests"], "Feature work");
    writeFileSync(dir.join("broken.jsonl"), "not a session\n");
    writeFileSync(dir.join("notes.txt"), "ignored");

    const progress: Array<[number, number]> = [];
    const sessions = await SessionManager.list("/p", dir.path, (loaded, total) => progress.push([loaded, total]));
    expect(sessions.map((info) => info.id)).toEqual([newer.getSessionId(), older.getSessionId()]);
    expect(sessions[0]).toMatchObject({
      path: newer.getSessionFile(),
      cwd: "/p",
      name: "Feature work",
      messageCount: 3,
      firstMessage: "add a feature",
      allMessagesText: "add a feature added and tests",
    });
    expect(sessions[0].created).toEqual(new Date(newer.getHeader().timestamp));
    expect(sessions[0].modified.getTime()).toBeGreaterThan(sessions[1].modified.getTime());
    expect(progress).toEqual([[1, 3], [2, 3], [3, 3]]);
    expect(await SessionManager.list("/p", dir.join("nothing-here"))).toEqual([]);
  });

  test("listAll covers every project under the config root", async () => {
    const one = writeSession("/project-one", undefined, ["one"]);
    const two = writeSession("/project-two", undefined, ["two"]);
    const child = SessionManager.create("/project-two");
    child.newSession({ parentSession: two.getSessionFile() });
    child.appendMessage(userMessage("child"));
    let lastProgress: [number, number] | undefined;
    const sessions = await SessionManager.listAll((loaded, total) => (lastProgress = [loaded, total]));
    expect(sessions.map((info) => info.cwd).sort()).toEqual(["/project-one", "/project-two", "/project-two"]);
    expect(sessions.find((info) => info.id === child.getSessionId())?.parentSessionPath).toBe(two.getSessionFile());
    expect(sessions.some((info) => info.path === one.getSessionFile())).toBe(true);
    expect(lastProgress).toEqual([3, 3]);
  });

  test("continueRecent opens the most recently modified session, or creates one", () => {
    expect(findMostRecentSession(dir.join("none"))).toBeNull();
    const fresh = SessionManager.continueRecent("/p", dir.path);
    expect(fresh.getEntries()).toEqual([]);

    const a = writeSession("/p", dir.path, ["a"]);
    const b = writeSession("/p", dir.path, ["b"]);
    const past = new Date(Date.now() - 60_000);
    utimesSync(b.getSessionFile()!, past, past);
    mkdirSync(dir.join("sub.jsonl")); // not a file: never a candidate
    writeFileSync(dir.join("zzz.jsonl"), "garbage\n"); // newest, but not a session
    expect(findMostRecentSession(dir.path)).toBe(a.getSessionFile()!);

    const continued = SessionManager.continueRecent("/p", dir.path);
    expect(continued.getSessionId()).toBe(a.getSessionId());
    expect(continued.getLeafId()).toBe(a.getLeafId());
  });
});
