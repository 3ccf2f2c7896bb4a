/**
 * The `edit` tool: exact-text replacements in one file, applied together or
 * not at all. The model works with LF text; the file keeps its own line
 * endings and BOM. The read-modify-write runs in the per-file mutation queue,
 * so parallel edits of one file each see the other's result.
 */
import { fsPromises } from "./fs-promises.ts";
import { constants } from "node:fs";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import {
  applyEdits,
  detectLineEnding,
  generateDiff,
  normalizeToLF,
  restoreLineEndings,
  stripBom,
  type TextEdit,
} from "./edit-diff.ts";
import { withFileMutationQueue } from "./file-mutation-queue.ts";
import { writeFileChecked } from "./unshared-write.ts";
import { readFileGuarded } from "../sandbox/read-guard.ts";
import { assertMayWrite } from "../sandbox/write-guard.ts";
import { resolveToCwd } from "./path-utils.ts";
import type { CodingTool } from "./types.ts";

const editSchema = Type.Object({
  path: Type.String({ description: "Path to the file to edit (relative to the working directory, or absolute)" }),
  edits: Type.Array(
    Type.Object({
      oldText: Type.String({
        description: "Exact text to replace; must occur exactly once in the file, whitespace and indentation included",
      }),
      newText: Type.String({ description: "Text to put in its place" }),
    }),
    { description: "Replacements to make, each located in the original file; all are applied or none" },
  ),
});

export type EditToolInput = Static<typeof editSchema>;

export interface EditToolDetails {
  /** Changed lines with a little context; see `generateDiff` for the format. */
  diff: string;
  /** 1-based line of the first change in the new file. */
  firstChangedLine?: number;
}

/** File access `edit` needs; replace it to edit on a remote machine or in a container. */
export interface EditOperations {
  readFile(absolutePath: string): Promise<Buffer>;
  writeFile(absolutePath: string, content: string): Promise<void>;
  /** Resolves when the file exists and can be read and written; rejects otherwise. */
  access(absolutePath: string): Promise<void>;
}

export interface EditToolOptions {
  operations?: EditOperations;
}

/** This machine's files; the write is judged again where it lands (unshared-write.ts). */
const localEditOperations = (cwd: string): EditOperations => ({
  // As the read tool reads: a regular file only (not /dev/zero), never xcsh's own process.
  readFile: readFileGuarded,
  writeFile: (absolutePath, content) => writeFileChecked(absolutePath, content, cwd, false),
  access: async (absolutePath) => (await fsPromises()).access(absolutePath, constants.R_OK | constants.W_OK),
});

const DESCRIPTION =
  "Edit a file by replacing exact text; read it first. Each edit's oldText must match exactly one place in the file as it is now, including whitespace and indentation; include enough surrounding lines to make it unique. Several edits to one file go in one call: each is located in the original file, they must not overlap, and either all are applied or none. Use write for new files or complete rewrites.";

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Accepts older and sloppier spellings of the arguments: the single-edit form
 * `{path, oldText, newText}` of earlier versions (still in old sessions), and
 * `edits` sent as a JSON string.
 */
function prepareEditArguments(args: unknown): EditToolInput {
  if (!isRecord(args)) return args as EditToolInput;
  const { oldText, newText, ...rest } = args;
  let edits = rest.edits;
  if (typeof edits === "string") {
    try {
      edits = JSON.parse(edits);
    } catch {
      // Leave it as it is; validation reports the bad value.
    }
  }
  if (typeof oldText === "string" && typeof newText === "string") {
    edits = [...(Array.isArray(edits) ? edits : []), { oldText, newText }];
  } else if (oldText !== undefined || newText !== undefined) {
    // Half a legacy edit: keep the fields so validation names them.
    return { ...args, edits } as EditToolInput;
  }
  return { ...rest, edits } as EditToolInput;
}

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

function fileError(error: unknown, absolutePath: string): Error {
  switch (errorCode(error)) {
    case "ENOENT":
      return new Error(`File not found: ${absolutePath}. To create a new file, use write.`);
    case "EISDIR":
      return new Error(`${absolutePath} is a directory, not a file.`);
    case "EACCES":
    case "EPERM":
      return new Error(`Permission denied: ${absolutePath} cannot be read and written.`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error("Operation aborted");
}

/** The file as text, refusing files that would not survive a round trip through UTF-8. */
function decodeText(buffer: Buffer, absolutePath: string): string {
  const text = buffer.toString("utf8");
  if (buffer.includes(0) || !Buffer.from(text, "utf8").equals(buffer)) {
    throw new Error(
      `${absolutePath} is not UTF-8 text; editing it would corrupt it. Use bash to change binary or non-UTF-8 files.`,
    );
  }
  return text;
}

function summary(editCount: number, displayPath: string, looseMatches: number[]): string {
  const applied = `Successfully applied ${editCount} edit${editCount === 1 ? "" : "s"} to ${displayPath}.`;
  if (looseMatches.length === 0) return applied;
  const which = looseMatches.map((i) => i + 1).join(", ");
  return `${applied} Edit${looseMatches.length === 1 ? "" : "s"} ${which} matched only after ignoring trailing whitespace and quote/dash style; re-read the file if exact text matters.`;
}

export function createEditTool(
  cwd: string,
  options?: EditToolOptions,
): CodingTool<typeof editSchema, EditToolDetails | undefined> {
  const ops = options?.operations ?? localEditOperations(cwd);
  return {
    name: "edit",
    label: "Edit",
    description: DESCRIPTION,
    parameters: editSchema,
    prepareArguments: prepareEditArguments,
    promptSnippet: "Make exact-text replacements in files (several per call, applied atomically)",
    // No guidelines: the description says how to use it, and the model sees it with every request.
    promptGuidelines: [],
    async execute(_toolCallId, params, signal) {
      throwIfAborted(signal);
      const absolutePath = resolveToCwd(params.path, cwd);
      // Written from inside xcsh: the sandbox's writable folders are checked here (a remote or editor backend has its own rules).
      if (!options?.operations) assertMayWrite(absolutePath, cwd);
      // Callers that skip the agent loop (extensions, scripts) may pass the legacy form straight in.
      const edits: unknown = prepareEditArguments(params).edits;
      if (!Array.isArray(edits) || edits.length === 0) {
        throw new Error("edits must be a non-empty array of {oldText, newText}.");
      }

      return withFileMutationQueue(absolutePath, async () => {
        throwIfAborted(signal);
        let buffer: Buffer;
        try {
          await ops.access(absolutePath);
          buffer = await ops.readFile(absolutePath);
        } catch (error) {
          throw fileError(error, absolutePath);
        }

        const { bom, text: withoutBom } = stripBom(decodeText(buffer, absolutePath));
        const lineEnding = detectLineEnding(withoutBom);
        const original = normalizeToLF(withoutBom);
        const { content: updated, looseMatches } = applyEdits(original, edits as TextEdit[], params.path);
        if (updated === original) {
          throw new Error(
            `No changes made to ${params.path}: the replacement text is identical to the text it replaces.`,
          );
        }

        // Last chance to stop before the file changes.
        throwIfAborted(signal);
        try {
          await ops.writeFile(absolutePath, bom + restoreLineEndings(updated, lineEnding));
        } catch (error) {
          throw fileError(error, absolutePath);
        }

        const { diff, firstChangedLine } = generateDiff(original, updated);
        return {
          content: [{ type: "text", text: summary(edits.length, params.path, looseMatches) }],
          details: { diff, firstChangedLine },
        };
      });
    },
  };
}
