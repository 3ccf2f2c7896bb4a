/**
 * Makes an image fit to send to a model, the one decision every path that adds an
 * image to the conversation takes (read, @file arguments, prompt attachments from RPC
 * or the editor, images in tool results). With `images.autoResize` on (the default, as
 * in pi 1.6.0) an image larger than the model's resize profile is scaled down once,
 * before it is stored, with a note that tells the model the original size and how to
 * map coordinates back; the session keeps the resized bytes, so a resumed session sends
 * the same image again. With it off, an image past the providers' limits is refused
 * (image-limits.ts). An image that cannot be decoded is refused either way, saying why.
 */
import type { ImageContent } from "../ai/types.ts";
import { imageProblem } from "./image-limits.ts";
import { formatDimensionNote, resizeImage, type ImageResizeOptions } from "./image-resize.ts";

export interface ImagePolicy {
  /** settings.json `images.autoResize` (default true). */
  autoResize: boolean;
  /** The model's `inputLimits.images.resize`; pi's defaults where unset. */
  resize?: ImageResizeOptions;
}

export const DEFAULT_IMAGE_POLICY: ImagePolicy = { autoResize: true };

export type FittedImage =
  | { ok: true; image: ImageContent; /** For the model, beside the image: how it was scaled. */ note?: string }
  | { ok: false; /** Why it cannot be sent and what to do, naming `label`. */ message: string };

/** `autoResize` from a settings object (`"images": { "autoResize": false }` turns it off). */
export function autoResizeSetting(settings: Readonly<Record<string, unknown>>): boolean {
  const images = settings.images;
  return !(typeof images === "object" && images !== null && (images as { autoResize?: unknown }).autoResize === false);
}

/** The image as it should be sent, or why it cannot be; `label` names it in messages (a path, "attached image 1"). */
export async function fitImage(bytes: Uint8Array, mimeType: string, policy: ImagePolicy, label: string): Promise<FittedImage> {
  if (!policy.autoResize) {
    const problem = imageProblem(bytes, mimeType, label);
    return problem ? { ok: false, message: problem } : { ok: true, image: asContent(bytes, mimeType) };
  }
  let resized: Awaited<ReturnType<typeof resizeImage>>;
  try {
    resized = await resizeImage(bytes, mimeType, policy.resize);
  } catch (error) {
    // Only a bad resize profile throws; the schema of models.json keeps those out, but say so if one slips by.
    return { ok: false, message: `${label} was not sent: ${(error as Error).message}` };
  }
  if (!resized) {
    return {
      ok: false,
      message:
        `${label} could not be decoded as ${mimeType} (the file may be damaged or truncated, or have too many pixels to decode), so it was not sent to the model. ` +
        `Open or convert it (e.g. to a plain PNG) to check it, and send the converted copy instead.`,
    };
  }
  return { ok: true, image: { type: "image", data: resized.data, mimeType: resized.mimeType }, note: formatDimensionNote(resized) };
}

function asContent(bytes: Uint8Array, mimeType: string): ImageContent {
  return { type: "image", data: Buffer.from(bytes).toString("base64"), mimeType };
}
