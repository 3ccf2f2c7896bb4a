/**
 * The images a user message carries (RPC `prompt`/`steer`/`follow_up`, @file
 * arguments, an editor paste), fitted for the model before the message is stored:
 * each is scaled by tools/image-fit.ts under the session's image policy; the notes
 * (original size, how to map coordinates) go after the message's text, and an image
 * that cannot be sent is left out with a line saying why — as pi 1.6.0 does — so the
 * rest of the prompt still goes.
 */
import type { ImageContent } from "../ai/types.ts";
import { fitImage, type ImagePolicy } from "../tools/image-fit.ts";

export async function fitPromptImages(
  text: string,
  images: ImageContent[] | undefined,
  policy: ImagePolicy,
): Promise<{ text: string; images: ImageContent[] | undefined }> {
  if (!images?.length) return { text, images };
  const fitted: ImageContent[] = [];
  const notes: string[] = [];
  for (const [index, image] of images.entries()) {
    const label = images.length === 1 ? "The attached image" : `Attached image ${index + 1}`;
    const result = await fitImage(Buffer.from(image.data, "base64"), image.mimeType, policy, label);
    if (result.ok) {
      fitted.push(result.image);
      if (result.note) notes.push(result.note);
    } else {
      notes.push(`[${result.message}]`);
    }
  }
  return { text: notes.length > 0 ? `${text}\n\n${notes.join("\n")}` : text, images: fitted };
}
