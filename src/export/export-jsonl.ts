/**
 * The active branch as a session file of its own: the header (same session id,
 * a new timestamp, no parent), then the entries from the root to the leaf, each
 * re-parented on the one before it. The result is a linear v3 session that xcsh
 * and pi open like any other; the other branches are left out.
 */
import { pathToEntry } from "../session/build-context.ts";
import { CURRENT_SESSION_VERSION, type SessionEntry, type SessionHeader } from "../session/types.ts";
import type { SessionSnapshot } from "./session-tree-view.ts";

export function linearSessionLines(snapshot: SessionSnapshot, now = new Date()): string {
  const header: SessionHeader = {
    type: "session",
    version: CURRENT_SESSION_VERSION,
    id: snapshot.header.id,
    timestamp: now.toISOString(),
    cwd: snapshot.header.cwd,
  };
  const byId = new Map(snapshot.entries.map((entry) => [entry.id, entry]));
  const path = snapshot.leafId === null ? [] : pathToEntry(snapshot.leafId, byId);
  const lines = [JSON.stringify(header)];
  let parentId: string | null = null;
  for (const entry of path) {
    lines.push(JSON.stringify({ ...entry, parentId } satisfies SessionEntry));
    parentId = entry.id;
  }
  return lines.join("\n") + "\n";
}
