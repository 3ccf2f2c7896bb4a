/**
 * A `session/prompt`'s content blocks as the text and images xcsh prompts with.
 * Text is kept in order; images ride along; an embedded resource's text and a
 * linked file's contents are appended as context the model can read, each
 * marked with where it came from. Audio is refused (not advertised).
 */
import { fileURLToPath } from "node:url";
import { RequestError, type ContentBlock } from "@agentclientprotocol/sdk";
import type { ImageContent } from "../../ai/types.ts";

/** The most of a linked file put into the prompt. */
const MAX_LINKED_BYTES = 256 * 1024;

export interface PromptInput {
  text: string;
  images: ImageContent[];
}

function contextBlock(uri: string, body: string): string {
  return `<context uri="${uri}">\n${body}\n</context>`;
}

function filePath(uri: string): string | undefined {
  if (uri.startsWith("file://")) {
    try {
      return fileURLToPath(uri);
    } catch {
      return undefined;
    }
  }
  return uri.startsWith("/") ? uri : undefined;
}

/** Reads a linked file: through the client's buffers when offered, else from disk. */
export type LinkedFileReader = (path: string) => Promise<string>;

async function linkedFile(uri: string, read: LinkedFileReader): Promise<string | undefined> {
  const path = filePath(uri);
  if (!path) return undefined;
  try {
    const content = await read(path);
    return content.length > MAX_LINKED_BYTES ? `${content.slice(0, MAX_LINKED_BYTES)}\n[… truncated: the file is larger than ${MAX_LINKED_BYTES} characters; read it with the read tool]` : content;
  } catch (error) {
    return `[could not read ${path}: ${(error as Error).message}]`;
  }
}

export async function promptInput(blocks: readonly ContentBlock[], readLinked: LinkedFileReader): Promise<PromptInput> {
  const parts: string[] = [];
  const context: string[] = [];
  const images: ImageContent[] = [];
  for (const [index, block] of blocks.entries()) {
    switch (block.type) {
      case "text":
        parts.push(block.text);
        break;
      case "image":
        images.push({ type: "image", data: block.data, mimeType: block.mimeType });
        break;
      case "resource": {
        const resource = block.resource;
        if ("text" in resource) context.push(contextBlock(resource.uri, resource.text));
        else if (resource.mimeType?.startsWith("image/")) images.push({ type: "image", data: resource.blob, mimeType: resource.mimeType });
        else context.push(contextBlock(resource.uri, `[binary content of type ${resource.mimeType ?? "unknown"} not included]`));
        break;
      }
      case "resource_link": {
        const content = await linkedFile(block.uri, readLinked);
        if (content !== undefined) context.push(contextBlock(block.uri, content));
        else parts.push(`[${block.name}](${block.uri})`);
        break;
      }
      case "audio":
        throw RequestError.invalidParams(undefined, `prompt[${index}]: audio is not supported (promptCapabilities.audio is false); send text or images`);
      default:
        throw RequestError.invalidParams(undefined, `prompt[${index}]: unknown content type "${(block as { type?: unknown }).type}"`);
    }
  }
  const text = [parts.join("\n"), ...context].filter((part) => part !== "").join("\n\n");
  return { text, images };
}
