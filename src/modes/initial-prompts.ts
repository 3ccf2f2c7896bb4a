/**
 * The prompts a run starts with, from the command line, as pi 0.87.1 builds them:
 * every message word is a prompt of its own, sent after the previous one finished;
 * the `@path` files go with the first — a text file as its contents in a
 * `<file name="…">` block, an image (known by its bytes, not its name) as image
 * content beside an empty block — and piped stdin, trimmed, comes before all of it.
 * A file that is missing, a folder, or — with `images.autoResize` off — an image too
 * large to send is a usage error naming the argument; with it on (the default) the
 * session scales the image like every other attachment (core/prompt-images.ts).
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { resolve } from "node:path";
import type { ImageContent } from "../ai/types.ts";
import { UserError } from "../core/user-error.ts";
import { imageProblem } from "../tools/image-limits.ts";
import { detectImageMimeTypeFromBytes } from "../tools/image-mime.ts";
import { autoResizeSetting } from "../tools/image-fit.ts";

export interface InitialPrompt {
  text: string;
  images: ImageContent[];
}

/** Where `@path` points: `~` is the home folder, anything relative is taken from `cwd`. */
function filePath(path: string, cwd: string): string {
  if (path === "~") return homedir();
  if (path.startsWith("~/")) return resolve(homedir(), path.slice(2));
  return resolve(cwd, path);
}

/** The text and images the `@path` arguments add to the first prompt, in their order. */
export function readFileArguments(paths: readonly string[], cwd: string, settings: Readonly<Record<string, unknown>> = {}): InitialPrompt {
  const refuseOversized = !autoResizeSetting(settings);
  let text = "";
  const images: ImageContent[] = [];
  for (const path of paths) {
    const absolute = filePath(path, cwd);
    let size: number;
    try {
      const stat = statSync(absolute);
      if (stat.isDirectory()) throw new UserError(`@${path}: ${absolute} is a folder; name a file to send with the prompt`, 2);
      size = stat.size;
    } catch (error) {
      if (error instanceof UserError) throw error;
      throw new UserError(`@${path}: file not found: ${absolute}`, 2);
    }
    // An empty file adds nothing (pi leaves it out altogether).
    if (size === 0) continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(absolute);
    } catch (error) {
      throw new UserError(`@${path}: cannot read ${absolute} (${(error as Error).message})`, 2);
    }
    const mimeType = detectImageMimeTypeFromBytes(bytes.subarray(0, 12));
    if (mimeType) {
      const problem = refuseOversized ? imageProblem(bytes, mimeType, absolute) : undefined;
      if (problem) throw new UserError(`@${path}: ${problem}`, 2);
      images.push({ type: "image", data: bytes.toString("base64"), mimeType });
      text += `<file name="${absolute}"></file>\n`;
    } else {
      text += `<file name="${absolute}">\n${bytes.toString("utf8")}\n</file>\n`;
    }
  }
  return { text, images };
}

/**
 * The prompts in the order they are sent. `piped` is standard input's text when
 * it was a pipe or a file. Empty when there is nothing to send.
 */
export function initialPrompts(messages: readonly string[], files: InitialPrompt, piped?: string): InitialPrompt[] {
  const [first = "", ...rest] = messages;
  const prompts: InitialPrompt[] = [{ text: (piped?.trim() ?? "") + files.text + first, images: files.images }];
  for (const text of rest) prompts.push({ text, images: [] });
  return prompts.filter((prompt) => prompt.text.trim() !== "" || prompt.images.length > 0);
}
