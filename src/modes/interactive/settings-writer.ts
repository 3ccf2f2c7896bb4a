/**
 * Writing one key of the global settings.json from /settings and
 * /scoped-models: the file is read as it is (keys xcsh does not know are
 * kept), the key set (a dotted path like `compaction.enabled` reaches into an
 * object; undefined removes it), and the result written to a temp file beside
 * it and renamed over it, so a crash never leaves half a file. A file that is
 * not valid JSON is never overwritten: the error says to fix it first.
 */
import { readJsonFile, writeJsonFile } from "../../config/json-file.ts";
import { getSettingsPath } from "../../config/paths.ts";

/** Sets `path` (e.g. "compaction.enabled") in the global settings file; throws with what is wrong. */
export function writeGlobalSetting(path: string, value: unknown, file = getSettingsPath()): void {
  const content = readJsonFile(file, "It was not changed.") ?? {};
  if (typeof content !== "object" || content === null || Array.isArray(content)) throw new Error(`${file}: expected a JSON object; it was not changed`);
  const keys = path.split(".");
  let place = content as Record<string, unknown>;
  for (const key of keys.slice(0, -1)) {
    const next = place[key];
    if (typeof next !== "object" || next === null || Array.isArray(next)) place[key] = {};
    place = place[key] as Record<string, unknown>;
  }
  const last = keys.at(-1)!;
  if (value === undefined) delete place[last];
  else place[last] = value;
  writeJsonFile(file, content);
}

/** Sets `path` in an in-memory settings object (the session's), the same way. */
export function setInMemory(settings: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  let place = settings;
  for (const key of keys.slice(0, -1)) {
    if (typeof place[key] !== "object" || place[key] === null) place[key] = {};
    place = place[key] as Record<string, unknown>;
  }
  if (value === undefined) delete place[keys.at(-1)!];
  else place[keys.at(-1)!] = value;
}

/** The value at `path` in a settings object. */
export function getAt(settings: Record<string, unknown>, path: string): unknown {
  let value: unknown = settings;
  for (const key of path.split(".")) value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}
