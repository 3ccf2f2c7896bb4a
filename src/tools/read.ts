/**
 * The `read` tool: a file's text by line range, or an image as image content.
 * Output is head-truncated to what a model can usefully take in, with a notice
 * saying which `offset` shows the rest.
 */
import { fsPromises } from "./fs-promises.ts";
import { constants } from "node:fs";
import type { Static } from "typebox";
import { Type } from "../schema/type.ts";
import type { AgentToolResult } from "../agent/types.ts";
import type { ImageContent, TextContent } from "../ai/types.ts";
import { detectImageMimeTypeFromBytes, detectImageMimeTypeFromFile } from "./image-mime.ts";
import { DEFAULT_IMAGE_POLICY, fitImage, type ImagePolicy } from "./image-fit.ts";
import { assertFileToRead, readFileGuarded } from "../sandbox/read-guard.ts";
import { resolveReadPath } from "./path-utils.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead, type TruncationResult } from "./truncate.ts";
import type { CodingTool } from "./types.ts";

const readSchema = Type.Object({
  path: Type.String({ description: "Path to the file to read (relative to the working directory, or absolute)" }),
  offset: Type.Optional(Type.Number({ description: "Line number to start reading from (1-based)" })),
  limit: Type.Optional(Type.Number({ description: "Maximum number of lines to read" })),
});

export type ReadToolInput = Static<typeof readSchema>;

export interface ReadToolDetails {
  truncation?: TruncationResult;
}

/** File access `read` needs; replace it to read from a remote machine or a container. */
export interface ReadOperations {
  readFile(absolutePath: string): Promise<Buffer>;
  /** Resolves when the file exists and is readable; rejects otherwise. */
  access(absolutePath: string): Promise<void>;
  /** The image MIME type of the file, or null when it is not an image. Undefined (or absent): sniff the bytes read. */
  detectImageMimeType?(absolutePath: string): Promise<string | null | undefined>;
}

export interface ReadToolOptions {
  operations?: ReadOperations;
  /** How images are fitted for the model, asked at each read (settings and the model may change); pi's defaults when absent. */
  images?: () => ImagePolicy;
}

const localReadOperations: ReadOperations = {
  // Judged by what was opened: a sandbox keeps its hidden folders hidden from this tool too.
  readFile: readFileGuarded,
  access: async (absolutePath) => (await fsPromises()).access(absolutePath, constants.R_OK),
  detectImageMimeType: detectImageMimeTypeFromFile,
};

/** How much of the file's start decides whether it is binary. */
const BINARY_SNIFF_BYTES = 8192;

const DESCRIPTION = `Read the contents of a file. Text files are returned as lines; images (png, jpeg, gif, webp) are returned as image content you can see. Output is limited to ${DEFAULT_MAX_LINES} lines or ${formatSize(DEFAULT_MAX_BYTES)}, whichever comes first; when a file is longer, a notice at the end gives the offset to continue from. Use offset (1-based line number) and limit (line count) to read part of a large file.`;

function errorCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null && "code" in error ? String(error.code) : undefined;
}

/** Turns a filesystem failure into a message that tells the model what to do next. */
function fileError(error: unknown, absolutePath: string): Error {
  switch (errorCode(error)) {
    case "ENOENT":
      return new Error(`File not found: ${absolutePath}`);
    case "EISDIR":
      return new Error(`${absolutePath} is a directory, not a file. Use ls to list its contents.`);
    case "EACCES":
    case "EPERM":
      return new Error(`Permission denied reading ${absolutePath}`);
    default:
      return error instanceof Error ? error : new Error(String(error));
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw new Error("Operation aborted");
}

/** NUL bytes do not occur in text files, in any common encoding but UTF-16. */
function looksBinary(buffer: Buffer): boolean {
  return buffer.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** A file's lines; a final newline ends the last line rather than starting an empty one. */
function splitFileLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Quotes a path for the shell command suggested in a notice. */
function shellQuote(path: string): string {
  return `'${path.replaceAll("'", `'\\''`)}'`;
}

function textResult(text: string, details?: ReadToolDetails): AgentToolResult<ReadToolDetails | undefined> {
  return { content: [{ type: "text", text }], details };
}

function imageResult(image: ImageContent, note: string | undefined): AgentToolResult<ReadToolDetails | undefined> {
  // The note (original size, how to map coordinates back) is in the text codemode scripts get as `note` too.
  const text = note ? `Read image file [${image.mimeType}]\n${note}` : `Read image file [${image.mimeType}]`;
  const content: (TextContent | ImageContent)[] = [{ type: "text", text }, image];
  return { content, details: undefined };
}

function positiveInteger(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value)) throw new Error(`${name} must be a number`);
  return Math.floor(value);
}

/** The requested line range of a text file, truncated, with notices on how to see more. */
function formatTextRange(
  text: string,
  displayPath: string,
  offsetInput: number | undefined,
  limitInput: number | undefined,
): AgentToolResult<ReadToolDetails | undefined> {
  // CRLF and a BOM are invisible encoding details; edit restores both, so the model sees plain lines.
  const lines = splitFileLines(text.replace(/^\uFEFF/, "").replaceAll("\r\n", "\n"));
  const totalLines = lines.length;
  if (text.length === 0) return textResult("[The file is empty]");

  // Models sometimes count from 0; treat anything below 1 as the start.
  const startLine = Math.max(1, positiveInteger(offsetInput, "offset") ?? 1);
  if (startLine > totalLines) {
    throw new Error(
      `Offset ${startLine} is beyond the end of ${displayPath}, which has ${totalLines} line${totalLines === 1 ? "" : "s"}.`,
    );
  }
  const limit = positiveInteger(limitInput, "limit");
  if (limit !== undefined && limit < 1) throw new Error("limit must be at least 1");

  const endIndex = limit === undefined ? totalLines : Math.min(totalLines, startLine - 1 + limit);
  const selected = lines.slice(startLine - 1, endIndex);
  const truncation = truncateHead(selected.join("\n"));

  if (truncation.firstLineExceedsLimit) {
    const lineSize = formatSize(Buffer.byteLength(selected[0], "utf8"));
    const skip = startLine < totalLines ? ` Use offset=${startLine + 1} to skip it.` : "";
    return textResult(
      `[Line ${startLine} is ${lineSize}, more than the ${formatSize(truncation.maxBytes)} read limit. ` +
        `Use bash to see part of it, e.g. sed -n '${startLine}p' ${shellQuote(displayPath)} | head -c ${truncation.maxBytes}.${skip}]`,
      { truncation },
    );
  }

  if (truncation.truncated) {
    const lastShown = startLine + truncation.outputLines - 1;
    const limitNote = truncation.truncatedBy === "bytes" ? ` (${formatSize(truncation.maxBytes)} limit)` : "";
    return textResult(
      `${truncation.content}\n\n[Showing lines ${startLine}-${lastShown} of ${totalLines}${limitNote}. Use offset=${lastShown + 1} to continue.]`,
      { truncation },
    );
  }

  if (endIndex < totalLines) {
    const remaining = totalLines - endIndex;
    return textResult(
      `${truncation.content}\n\n[${remaining} more line${remaining === 1 ? "" : "s"} in file. Use offset=${endIndex + 1} to continue.]`,
    );
  }
  return textResult(truncation.content);
}

export function createReadTool(
  cwd: string,
  options?: ReadToolOptions,
): CodingTool<typeof readSchema, ReadToolDetails | undefined> {
  const ops = options?.operations ?? localReadOperations;
  return {
    name: "read",
    label: "Read",
    description: DESCRIPTION,
    parameters: readSchema,
    promptSnippet: "Read file contents (text by line range, images as images)",
    promptGuidelines: ["Use read to examine files instead of cat or sed."],
    async execute(_toolCallId, params, signal) {
      throwIfAborted(signal);
      const absolutePath = resolveReadPath(params.path, cwd);
      // Read from inside xcsh: what the sandbox hides from commands stays hidden (a remote backend has its own rules).
      if (!options?.operations) assertFileToRead(absolutePath);

      let buffer: Buffer;
      let declaredMime: string | null | undefined;
      try {
        await ops.access(absolutePath);
        declaredMime = await ops.detectImageMimeType?.(absolutePath);
        buffer = await ops.readFile(absolutePath);
      } catch (error) {
        throw fileError(error, absolutePath);
      }
      throwIfAborted(signal);

      const mimeType = declaredMime === undefined ? detectImageMimeTypeFromBytes(buffer) : declaredMime;
      if (mimeType) {
        // Scaled to fit the model, or refused saying what to do: an image a provider rejects fails the whole request.
        const fitted = await fitImage(buffer, mimeType, options?.images?.() ?? DEFAULT_IMAGE_POLICY, absolutePath);
        if (!fitted.ok) throw new Error(fitted.message);
        return imageResult(fitted.image, fitted.note);
      }

      if (looksBinary(buffer)) {
        return textResult(
          `[${absolutePath} is a binary file (${formatSize(buffer.length)}) and not a supported image, so its bytes are not shown. ` +
            `Use bash to inspect it, e.g. file ${shellQuote(absolutePath)} or xxd ${shellQuote(absolutePath)} | head.]`,
        );
      }
      return formatTextRange(buffer.toString("utf8"), absolutePath, params.offset, params.limit);
    },
  };
}
