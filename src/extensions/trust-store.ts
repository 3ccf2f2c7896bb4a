/**
 * Remembered project-trust decisions, in `<agentDir>/trust.json`:
 * `{ "version": 1, "projects": { "<absolute cwd>": { "trusted": true, "decidedAt": "<ISO>" } } }`.
 * A decision is remembered when the person (or a `project_trust` handler with
 * `remember: true`) says so; --trust-project and one-off answers are never written here.
 *
 * The file is rewritten whole through a temp file and a rename, so a crash leaves the old
 * or the new file, never half of one. Projects are keyed by real path, so one reached
 * through a symlink shares its decision. A broken file never stops xcsh: it counts as
 * empty, the caller gets a warning to show, and before it is replaced a copy is kept as
 * `trust.json.corrupt`. Entries xcsh cannot read are carried over untouched. Two xcsh
 * processes deciding at the same instant can still lose one decision (last write wins);
 * the cost is one repeated question.
 */
import { copyFileSync, readFileSync, realpathSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { Type } from "../schema/type.ts";
import { fitsSchema } from "../schema/validate.ts";
import { writePrivateFileAtomically } from "../config/private-files.ts";

export const TRUST_FILE_NAME = "trust.json";
const TRUST_FILE_VERSION = 1;

export interface TrustDecisionRecord {
  trusted: boolean;
  decidedAt: string;
}

const TrustFileSchema = Type.Object({
  version: Type.Number(),
  projects: Type.Record(Type.String(), Type.Unknown()),
});

const TrustDecisionSchema = Type.Object({ trusted: Type.Boolean(), decidedAt: Type.Optional(Type.String()) });

interface TrustStore {
  /** Every project entry as found, readable or not, so rewriting the file loses none. */
  projects: Record<string, unknown>;
  /** Why the file was not usable, for the person; absent when it was fine or missing. */
  warning?: string;
  /**
   * The file exists but its entries cannot be used: `corrupt` ones are replaced (after a
   * backup); `keep` ones (unreadable, or from a newer xcsh) are left alone.
   */
  unusable?: "corrupt" | "keep";
}

export function getTrustFilePath(agentDir: string): string {
  return join(agentDir, TRUST_FILE_NAME);
}

/** The key a project is remembered under: its real absolute path when it exists. */
export function trustKey(cwd: string): string {
  const absolute = resolve(cwd);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** The remembered decision for `cwd`, or undefined when there is none (or the file is unusable). */
export function readTrustDecision(agentDir: string, cwd: string): boolean | undefined {
  return inspectTrustDecision(agentDir, cwd).trusted;
}

/** Like readTrustDecision, plus a warning to show when trust.json could not be read. */
export function inspectTrustDecision(agentDir: string, cwd: string): { trusted?: boolean; warning?: string } {
  const store = readTrustStore(agentDir);
  const entry = store.projects[trustKey(cwd)];
  const trusted = fitsSchema(TrustDecisionSchema, entry) ? entry.trusted : undefined;
  return store.warning === undefined ? { trusted } : { trusted, warning: store.warning };
}

/**
 * Records a decision for `cwd`, keeping every other project's entry. Returns a warning
 * (the file was broken and replaced, or could not be written) instead of throwing.
 */
export function rememberTrustDecision(agentDir: string, cwd: string, trusted: boolean): string | undefined {
  const file = getTrustFilePath(agentDir);
  const store = readTrustStore(agentDir);
  if (store.unusable === "keep") return `${store.warning} The decision was not remembered.`;
  const record: TrustDecisionRecord = { trusted, decidedAt: new Date().toISOString() };
  const content = { version: TRUST_FILE_VERSION, projects: { ...store.projects, [trustKey(cwd)]: record } };
  try {
    const backup = store.unusable === "corrupt" ? keepCorruptCopy(file) : undefined;
    writePrivateFileAtomically(file, `${JSON.stringify(content, null, 2)}\n`);
    if (store.unusable === "corrupt") {
      return backup ? `${store.warning} It was replaced; the old content is in ${backup}.` : `${store.warning} It was replaced.`;
    }
    return store.warning;
  } catch (error) {
    return `Could not remember the trust decision in ${file}: ${(error as Error).message}`;
  }
}

function readTrustStore(agentDir: string): TrustStore {
  const file = getTrustFilePath(agentDir);
  let text: string;
  try {
    // Usually there is no file yet: seen without building an error (see config/json-file.ts).
    if (!statSync(file, { throwIfNoEntry: false })) return { projects: {} };
    text = readFileSync(file, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { projects: {} }; // nothing remembered yet
    return { projects: {}, warning: `Ignoring ${file}: it cannot be read (${(error as Error).message}).`, unusable: "keep" };
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch {
    return corrupt(file, "it is not valid JSON");
  }
  if (!fitsSchema(TrustFileSchema, content)) return corrupt(file, 'expected {"version": 1, "projects": {...}}');
  if (content.version > TRUST_FILE_VERSION) {
    return {
      projects: {},
      warning: `Ignoring ${file}: it was written by a newer xcsh (version ${content.version}).`,
      unusable: "keep",
    };
  }
  return { projects: content.projects };
}

function corrupt(file: string, why: string): TrustStore {
  return { projects: {}, warning: `Ignoring ${file}: ${why}; remembered trust decisions are treated as none.`, unusable: "corrupt" };
}

function keepCorruptCopy(file: string): string | undefined {
  const backup = `${file}.corrupt`;
  try {
    copyFileSync(file, backup);
    return backup;
  } catch {
    return undefined;
  }
}
