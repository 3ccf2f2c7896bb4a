/**
 * The images attached to the prompt being written: from a pasted image path,
 * from the clipboard (Ctrl+V), and back from queued messages taken into the
 * editor (Alt+Up, Esc). The editor shows each as an `[image #n]` mark; the
 * images go with the next prompt sent, and Ctrl+C on a draft drops them.
 * `@server:uri` mentions of MCP resources are read when the prompt is sent
 * (withResources) and their text goes before it, as the command line's @files do.
 */
import type { ImageContent } from "../../ai/types.ts";
import type { AgentSession } from "../../core/agent-session.ts";
import type { EditorLike } from "./editor-host.ts";
import { imageFromPaste, imageMark, shiftImageMarks } from "./image-paste.ts";

export interface AttachmentHost {
  readonly cwd: string;
  /** Undefined until the session is ready. */
  session(): AgentSession | undefined;
  editor(): EditorLike;
  insert(text: string): void;
  say(label: string, detail?: string, color?: string): void;
  requestRender(): void;
}

export class Attachments {
  private readonly images: ImageContent[] = [];

  constructor(private readonly host: AttachmentHost) {}

  get count(): number {
    return this.images.length;
  }

  /** The images for the prompt being sent; none remain attached. */
  take(): ImageContent[] {
    return this.images.splice(0);
  }

  /** The text with each MCP resource it mentions (`@server:uri`) read and put before it. */
  async withResources(text: string): Promise<string> {
    return (await this.host.session()?.mcp?.attachResources(text)) ?? text;
  }

  clear(): void {
    this.images.length = 0;
  }

  attach(image: ImageContent): void {
    this.images.push(image);
    this.host.insert(`${imageMark(this.images.length)} `);
    this.host.requestRender();
  }

  /** A pasted image path attaches the image; false when the paste is something else. */
  attachPasted(data: string): boolean {
    const image = imageFromPaste(data, this.host.cwd);
    if (!image) return false;
    this.attach(image);
    return true;
  }

  /** Ctrl+V (Alt+V on Windows): the clipboard's image is attached, or a line says why not. */
  async attachClipboard(): Promise<void> {
    const { readClipboardImage } = await import("./clipboard-image.ts");
    const result = await readClipboardImage();
    if (!result.ok) return this.host.say(result.reason, "", "dim");
    this.attach(result.image);
  }

  /**
   * Takes the queued messages back into the editor, above the draft (Alt+Up, and Esc
   * before it aborts), and their images back among the attachments, before the
   * draft's own (their `[image #n]` marks renumbered to match).
   */
  restoreQueued(): void {
    const session = this.host.session();
    if (!session) return;
    const { steering, followUp } = session.takeQueued();
    const queued = [...steering, ...followUp];
    if (queued.length === 0) return;
    const texts: string[] = [];
    const images: ImageContent[] = [];
    for (const prompt of queued) {
      texts.push(shiftImageMarks(prompt.text, images.length));
      images.push(...prompt.images);
    }
    const editor = this.host.editor();
    const draft = shiftImageMarks(editor.getText(), images.length);
    this.images.unshift(...images);
    editor.setText([...texts, ...(draft.trim() ? [draft] : [])].join("\n"));
    this.host.requestRender();
  }
}
