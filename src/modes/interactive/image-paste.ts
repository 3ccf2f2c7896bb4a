/**
 * Pasting the path of an image file (png, jpeg, gif, webp) — what terminals
 * send when a file is dropped on them — attaches the image to the next
 * prompt. Anything else pasted is left to the editor.
 */
import { existsSync, readFileSync } from "node:fs";
import { extname, resolve } from "node:path";
import type { ImageContent } from "../../ai/types.ts";

const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };

/** How the editor marks the n-th image attached to the prompt being written (1-based). */
export function imageMark(n: number): string {
  return `[image #${n}]`;
}

/** `text` with every image mark moved up by `offset` (when images are put in front of its own). */
export function shiftImageMarks(text: string, offset: number): string {
  if (offset === 0) return text;
  return text.replace(/\[image #(\d+)\]/g, (_mark, n: string) => imageMark(Number(n) + offset));
}

/** The image a bracketed paste names, or undefined when it is not one readable image file. */
export function imageFromPaste(data: string, cwd: string): ImageContent | undefined {
  const match = /^\x1b\[200~([\s\S]*)\x1b\[201~$/.exec(data);
  if (!match) return undefined;
  const path = match[1]!.trim().replace(/^'(.*)'$/, "$1").replace(/\\ /g, " ");
  const mimeType = IMAGE_TYPES[extname(path).toLowerCase()];
  if (!mimeType || path.includes("\n")) return undefined;
  const file = resolve(cwd, path);
  if (!existsSync(file)) return undefined;
  try {
    return { type: "image", data: readFileSync(file).toString("base64"), mimeType };
  } catch {
    return undefined;
  }
}
