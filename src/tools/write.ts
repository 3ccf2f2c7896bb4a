/**
 * The `write` tool: creates or overwrites a file, creating missing parent
 * folders. Goes through the per-file mutation queue so it never interleaves
 * with an edit of the same file.
 */
import { dirname } from "node:path";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import { withFileMutationQueue } from "./file-mutation-queue.ts";
import { writeFileChecked } from "./unshared-write.ts";
import { assertMayWrite } from "../sandbox/write-guard.ts";
import { resolveToCwd } from "./path-utils.ts";
import type { CodingTool } from "./types.ts";

const writeSchema = Type.Object({
  path: Type.String({ description: "Path to the file to write (relative to the working directory, or absolute)" }),
  content: Type.String({ description: "The complete new content of the file" }),
});

export type WriteToolInput = Static<typeof writeSchema>;

/** `write` reports everything in its text; it has no structured details. */
export type WriteToolDetails = undefined;

/** File access `write` needs; replace it to write on a remote machine or in a container. */
export interface WriteOperations {
  writeFile(absolutePath: string, content: string): Promise<void>;
  /** Creates the folder and any missing parents; succeeds when it already exists. */
  mkdir(dir: string): Promise<void>;
}

export interface WriteToolOptions {
  operations?: WriteOperations;
}

/** This machine's files, as the sandbox allows: the write makes missing folders itself, inside the folder it holds open. */
const localWriteOperations = (cwd: string): WriteOperations => ({
  writeFile: (absolutePath, content) => writeFileChecked(absolutePath, content, cwd, true),
  mkdir: async () => {},
});

const DESCRIPTION =
  "Write content to a file. Creates the file if it does not exist and overwrites it if it does; missing parent folders are created. Use it for new files or complete rewrites; to change part of an existing file, use edit instead.";

function writeError(error: unknown, absolutePath: string): Error {
  const code = typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
  if (code === "EISDIR") return new Error(`Cannot write ${absolutePath}: it is a directory.`);
  if (code === "EACCES" || code === "EPERM") return new Error(`Permission denied writing ${absolutePath}`);
  if (code === "ENOTDIR") return new Error(`Cannot write ${absolutePath}: part of the path is a file, not a folder.`);
  return error instanceof Error ? error : new Error(String(error));
}

export function createWriteTool(
  cwd: string,
  options?: WriteToolOptions,
): CodingTool<typeof writeSchema, WriteToolDetails | undefined> {
  const ops = options?.operations ?? localWriteOperations(cwd);
  return {
    name: "write",
    label: "Write",
    description: DESCRIPTION,
    parameters: writeSchema,
    promptSnippet: "Create or overwrite files",
    // No guidelines: the description says when to use it (and edit's says when not to).
    promptGuidelines: [],
    async execute(_toolCallId, params, signal) {
      if (signal?.aborted) throw new Error("Operation aborted");
      const absolutePath = resolveToCwd(params.path, cwd);
      // Written from inside xcsh: the sandbox's writable folders are checked here (a remote or editor backend has its own rules).
      if (!options?.operations) assertMayWrite(absolutePath, cwd);
      return withFileMutationQueue(absolutePath, async () => {
        // The wait in the queue may have outlasted the call.
        if (signal?.aborted) throw new Error("Operation aborted");
        try {
          await ops.mkdir(dirname(absolutePath));
          await ops.writeFile(absolutePath, params.content);
        } catch (error) {
          throw writeError(error, absolutePath);
        }
        const bytes = Buffer.byteLength(params.content, "utf8");
        return {
          content: [{ type: "text", text: `Successfully wrote ${bytes} bytes to ${params.path}` }],
          details: undefined,
        };
      });
    },
  };
}
