/**
 * pi's `images.blockImages`: no image reaches a model. Each image block of a user
 * message or tool result is replaced, in what is sent only, by a line saying an image
 * was left out, so the model knows something was there and why. The session keeps
 * the images; turning the setting off sends them again.
 */
import type { ImageContent, Message, TextContent } from "../ai/types.ts";

export const BLOCKED_IMAGE_TEXT = "[image not sent: images.blockImages is on in settings.json]";

const blocked = (content: (TextContent | ImageContent)[]): TextContent[] =>
  content.map((block) => (block.type === "image" ? { type: "text", text: BLOCKED_IMAGE_TEXT } : block));

/** `messages` with every image block replaced; messages without images are the same objects. */
export function withoutImages(messages: Message[]): Message[] {
  return messages.map((message) => {
    if (message.role === "assistant" || typeof message.content === "string") return message;
    if (!message.content.some((block) => block.type === "image")) return message;
    return { ...message, content: blocked(message.content) } as Message;
  });
}

/** Whether a settings object asks for it (`"images": { "blockImages": true }`). */
export function imagesBlocked(settings: Readonly<Record<string, unknown>>): boolean {
  const images = settings.images;
  return typeof images === "object" && images !== null && (images as { blockImages?: unknown }).blockImages === true;
}
