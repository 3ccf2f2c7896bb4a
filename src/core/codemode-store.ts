/**
 * What codemode's `store()` keeps: values by key, written to the session as
 * `codemode-store` custom entries (one per successful script that stored
 * something) and read back from the current branch, so a resumed session keeps
 * them and each branch sees only the values written on its own path.
 */
import type { SessionManager } from "../session/session-manager.ts";

export const CODEMODE_STORE_ENTRY = "codemode-store";

/** One entry's data: keys set to values, and keys deleted (stored as undefined). */
interface StoreChanges {
  set: Record<string, unknown>;
  delete: string[];
}

export function codemodeStore(session: Partial<Pick<SessionManager, "getBranch" | "appendCustomEntry">> | undefined) {
  // Without a session manager (tests building an agent alone) the values live for the process.
  let memory: Record<string, unknown> = {};
  return {
    load(): Record<string, unknown> {
      if (!session?.getBranch) return { ...memory };
      const values: Record<string, unknown> = {};
      for (const entry of session.getBranch()) {
        if (entry.type !== "custom" || entry.customType !== CODEMODE_STORE_ENTRY) continue;
        const changes = entry.data as Partial<StoreChanges> | undefined;
        for (const [key, value] of Object.entries(changes?.set ?? {})) values[key] = value;
        for (const key of changes?.delete ?? []) delete values[key];
      }
      return values;
    },
    save(changes: Record<string, unknown>): void {
      const data: StoreChanges = { set: {}, delete: [] };
      for (const [key, value] of Object.entries(changes)) {
        if (value === undefined) data.delete.push(key);
        else data.set[key] = value;
      }
      if (session?.appendCustomEntry) session.appendCustomEntry(CODEMODE_STORE_ENTRY, data);
      else {
        memory = { ...memory, ...data.set };
        for (const key of data.delete) delete memory[key];
      }
    },
  };
}
