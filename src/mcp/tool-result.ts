/**
 * An MCP `tools/call` result as a tool result the model reads. Text stays text;
 * images stay images when a model can take them (a supported type; the session scales
 * or refuses by size, as for every tool), else a line says what was left out; an embedded resource shows its text
 * (or, for a binary one, what it is); a resource link becomes a line naming it;
 * `structuredContent` is shown as JSON when the server sent no text beside it (the
 * spec asks servers to, older ones do not). The text is truncated like other tools'
 * output (src/tools/truncate.ts), the whole of it kept in a temp file the model can
 * read. The raw result stays in `details` for hosts and extensions.
 */
import type { ImageContent, TextContent } from "../ai/types.ts";
import type { AgentToolResult } from "../agent/types.ts";
import { newTempFilePath, writeTempFile } from "../tools/temp-files.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, truncateHead } from "../tools/truncate.ts";

const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/gif", "image/webp"]);

/** The parts of a CallToolResult this reads; anything else a server sends is ignored. */
export interface McpCallResult {
  content?: unknown[];
  structuredContent?: unknown;
  isError?: boolean;
}

export interface McpToolDetails {
  server: string;
  tool: string;
  structuredContent?: unknown;
  /** Where the whole text went when it was truncated. */
  fullOutputPath?: string;
}

type Block = TextContent | ImageContent;

export function toToolResult(result: McpCallResult, details: McpToolDetails): AgentToolResult<McpToolDetails> {
  const blocks: Block[] = [];
  for (const item of Array.isArray(result.content) ? result.content : []) blocks.push(...convertBlock(item));
  const structured = result.structuredContent;
  if (structured !== undefined && !blocks.some((block) => block.type === "text")) {
    blocks.push({ type: "text", text: JSON.stringify(structured, null, 2) });
  }
  if (blocks.length === 0) blocks.push({ type: "text", text: "(the tool returned no content)" });
  const truncated = truncateText(blocks);
  return {
    content: truncated.blocks,
    details: {
      ...details,
      ...(structured !== undefined ? { structuredContent: structured } : {}),
      ...(truncated.fullOutputPath ? { fullOutputPath: truncated.fullOutputPath } : {}),
    },
  };
}

/** The text of an error result, for the error the agent loop reports. */
export function errorText(result: McpCallResult): string {
  const text = toToolResult(result, { server: "", tool: "" })
    .content.filter((block): block is TextContent => block.type === "text")
    .map((block) => block.text)
    .join("\n");
  return text || "the tool reported an error without a message";
}

function convertBlock(item: unknown): Block[] {
  if (typeof item !== "object" || item === null) return [];
  const block = item as Record<string, unknown>;
  switch (block.type) {
    case "text":
      return typeof block.text === "string" ? [{ type: "text", text: block.text }] : [];
    case "image":
      return image(block.data, block.mimeType, "image");
    case "audio":
      return [{ type: "text", text: `[audio (${String(block.mimeType ?? "unknown type")}) not shown: the model cannot take audio here]` }];
    case "resource":
      return embeddedResource(block.resource);
    case "resource_link":
      return [{ type: "text", text: resourceLinkLine(block) }];
    default:
      return [{ type: "text", text: `[content of type "${String(block.type)}" not shown]` }];
  }
}

function image(data: unknown, mimeType: unknown, what: string): Block[] {
  if (typeof data !== "string" || typeof mimeType !== "string") return [{ type: "text", text: `[${what} without data not shown]` }];
  if (!IMAGE_TYPES.has(mimeType)) return [{ type: "text", text: `[${what} of type ${mimeType} not shown: models take PNG, JPEG, GIF and WebP]` }];
  // Its size is the session's to fit (core/tool-result-images.ts: scaled, or refused with images.autoResize off).
  return [{ type: "image", data, mimeType }];
}

function embeddedResource(resource: unknown): Block[] {
  if (typeof resource !== "object" || resource === null) return [];
  const { uri, mimeType, text, blob } = resource as Record<string, unknown>;
  const name = typeof uri === "string" ? uri : "(no uri)";
  if (typeof text === "string") return [{ type: "text", text: `[resource ${name}]\n${text}` }];
  if (typeof blob === "string" && typeof mimeType === "string" && IMAGE_TYPES.has(mimeType)) return image(blob, mimeType, `resource ${name}`);
  const size = typeof blob === "string" ? `, ${formatSize(Math.floor((blob.length * 3) / 4))}` : "";
  return [{ type: "text", text: `[binary resource ${name} (${typeof mimeType === "string" ? mimeType : "unknown type"}${size}) not shown]` }];
}

function resourceLinkLine(link: Record<string, unknown>): string {
  const parts = [`[resource link: ${String(link.name ?? link.uri)} <${String(link.uri)}>`];
  if (typeof link.mimeType === "string") parts.push(` (${link.mimeType})`);
  parts.push("]");
  if (typeof link.description === "string" && link.description) parts.push(` ${link.description}`);
  return parts.join("");
}

/**
 * Keeps the text blocks within the common output limits, in order, sharing one
 * budget; images are kept. When anything is cut, the full text goes to a temp file.
 */
function truncateText(blocks: Block[]): { blocks: Block[]; fullOutputPath?: string } {
  const texts = blocks.filter((block): block is TextContent => block.type === "text").map((block) => block.text);
  const whole = texts.join("\n");
  const check = truncateHead(whole, { maxLines: DEFAULT_MAX_LINES, maxBytes: DEFAULT_MAX_BYTES });
  if (!check.truncated) return { blocks };
  let linesLeft = DEFAULT_MAX_LINES;
  let bytesLeft = DEFAULT_MAX_BYTES;
  const out: Block[] = [];
  for (const block of blocks) {
    if (block.type !== "text") {
      out.push(block);
      continue;
    }
    if (linesLeft <= 0 || bytesLeft <= 0) continue;
    const piece = truncateHead(block.text, { maxLines: linesLeft, maxBytes: bytesLeft });
    if (piece.content) out.push({ type: "text", text: piece.content });
    linesLeft -= piece.outputLines;
    bytesLeft -= piece.outputBytes + 1;
    if (piece.truncated) break;
  }
  let fullOutputPath: string | undefined;
  try {
    fullOutputPath = newTempFilePath("mcp-");
    writeTempFile(fullOutputPath, whole);
  } catch {
    fullOutputPath = undefined;
  }
  const where = fullOutputPath ? `Full output (read it with offset/limit): ${fullOutputPath}` : "Full output unavailable";
  const shown = out.filter((block): block is TextContent => block.type === "text").reduce((lines, block) => lines + block.text.split("\n").length, 0);
  const limit = check.truncatedBy === "bytes" ? ` (${formatSize(DEFAULT_MAX_BYTES)} limit)` : "";
  out.push({ type: "text", text: `[Output truncated: showing the first ${shown} of ${check.totalLines} lines${limit}. ${where}]` });
  return { blocks: out, fullOutputPath };
}
