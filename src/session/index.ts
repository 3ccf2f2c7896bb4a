/** The session store: JSONL session files as trees of entries (seed 002). */
export * from "./types.ts";
export { SessionManager } from "./session-manager.ts";
export { buildSessionContext, getLatestCompactionEntry } from "./build-context.ts";
export { migrateSessionEntries } from "./migrate.ts";
export {
  loadEntriesFromFile,
  parseSessionEntries,
  parseSessionFile,
  readSessionFile,
  SessionFileError,
  type ParsedSessionFile,
} from "./session-file.ts";
export { findMostRecentSession, listAllSessions, listSessions } from "./session-list.ts";
export { encodeCwdForDirName, getDefaultSessionDir, sessionFileName } from "./session-paths.ts";
export { generateEntryId, generateSessionId } from "./ids.ts";
