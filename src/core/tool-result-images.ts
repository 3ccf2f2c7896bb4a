/**
 * The images of a tool result, fitted for the model before the result is stored, as
 * pi 1.6.0 does for every tool (read fits its own first, with the file's path in its
 * messages, so its images pass here unchanged). A scaled image gets its note as a text
 * block after it; one that cannot be sent becomes a line saying why.
 */
import type { AgentToolResult } from "../agent/types.ts";
import type { ImageContent, TextContent } from "../ai/types.ts";
import { fitImage, type ImagePolicy } from "../tools/image-fit.ts";

export async function fitToolResultImages(result: AgentToolResult<any>, policy: ImagePolicy): Promise<AgentToolResult<any>> {
  if (!result.content.some((block) => block.type === "image")) return result;
  const content: (TextContent | ImageContent)[] = [];
  for (const block of result.content) {
    if (block.type !== "image") {
      content.push(block);
      continue;
    }
    const fitted = await fitImage(Buffer.from(block.data, "base64"), block.mimeType, policy, "An image in the tool result");
    if (!fitted.ok) {
      content.push({ type: "text", text: `[${fitted.message}]` });
      continue;
    }
    // The same block when nothing changed, so an unchanged result stays the same object's content.
    content.push(fitted.image.data === block.data ? block : fitted.image);
    if (fitted.note) content.push({ type: "text", text: fitted.note });
  }
  const changed = content.length !== result.content.length || content.some((block, index) => block !== result.content[index]);
  return changed ? { ...result, content } : result;
}
