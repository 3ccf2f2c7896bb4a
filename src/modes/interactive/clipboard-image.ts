/**
 * Reading an image from the system clipboard, for Ctrl+V in the editor (Alt+V on
 * Windows, where the terminal keeps Ctrl+V for pasting text). Terminals pass only
 * text through, so the image is asked of the desktop's own tool: `wl-paste` on
 * Wayland, `xclip` on X11, `osascript` on macOS, PowerShell on Windows — each a
 * program of xcsh's own (src/sandbox/own-programs.ts). Whatever goes wrong becomes a
 * sentence the person can act on, never an exception.
 */
import { ownProgram } from "../../sandbox/own-programs.ts";
import type { ImageContent } from "../../ai/types.ts";
import { detectImageMimeTypeFromBytes } from "../../tools/image-mime.ts";

export type ClipboardImage = { ok: true; image: ImageContent } | { ok: false; reason: string };

/** Image types in the order they are taken when the clipboard offers several. */
const PREFERRED_TYPES = ["image/png", "image/jpeg", "image/webp", "image/gif"];
const TIMEOUT_MS = 5_000;
/** Far above any screenshot; a larger "image" is more likely a mistake than a picture for the model. */
export const MAX_CLIPBOARD_IMAGE_BYTES = 20 * 1024 * 1024;

const NO_IMAGE = "The clipboard holds no image (copy one, or paste an image file's path)";

interface Run {
  /** undefined when the program is not installed. */
  exitCode?: number;
  stdout: Uint8Array;
}

async function run(command: string[], env: Record<string, string | undefined>): Promise<Run> {
  let proc: ReturnType<typeof Bun.spawn>;
  try {
    proc = Bun.spawn({ ...ownProgram(command, { from: env }), stdin: "ignore", stdout: "pipe", stderr: "ignore", timeout: TIMEOUT_MS });
  } catch {
    return { stdout: new Uint8Array() }; // not installed
  }
  const stdout = new Uint8Array(await new Response(proc.stdout as ReadableStream).arrayBuffer());
  return { exitCode: await proc.exited, stdout };
}

function asImage(bytes: Uint8Array): ClipboardImage {
  if (bytes.length === 0) return { ok: false, reason: NO_IMAGE };
  if (bytes.length > MAX_CLIPBOARD_IMAGE_BYTES) {
    return { ok: false, reason: `The clipboard image is ${Math.round(bytes.length / 1024 / 1024)} MB; images up to ${MAX_CLIPBOARD_IMAGE_BYTES / 1024 / 1024} MB can be attached` };
  }
  const mimeType = detectImageMimeTypeFromBytes(bytes);
  if (!mimeType) return { ok: false, reason: "The clipboard's image is not a PNG, JPEG, GIF or WebP" };
  return { ok: true, image: { type: "image", data: Buffer.from(bytes).toString("base64"), mimeType } };
}

function pickType(listing: Uint8Array): string | undefined {
  const offered = new Set(new TextDecoder().decode(listing).split(/\r?\n/).map((line) => line.trim()));
  return PREFERRED_TYPES.find((type) => offered.has(type));
}

/** A clipboard tool that lists the types it holds, then gives one of them. */
async function fromTypedClipboard(list: string[], read: (type: string) => string[], missing: string, env: Record<string, string | undefined>): Promise<ClipboardImage> {
  const listing = await run(list, env);
  if (listing.exitCode === undefined) return { ok: false, reason: missing };
  const type = listing.exitCode === 0 ? pickType(listing.stdout) : undefined;
  if (!type) return { ok: false, reason: NO_IMAGE };
  const data = await run(read(type), env);
  return data.exitCode === 0 ? asImage(data.stdout) : { ok: false, reason: NO_IMAGE };
}

/** `«data PNGf89504E47…»`, osascript's way of printing binary data, as bytes. */
export function parseAppleScriptData(text: string): Uint8Array | undefined {
  const match = /«data [A-Za-z0-9 ]{4}([0-9A-Fa-f]*)»/.exec(text);
  return match ? Uint8Array.from(Buffer.from(match[1]!, "hex")) : undefined;
}

const WINDOWS_SCRIPT = [
  "Add-Type -AssemblyName System.Windows.Forms, System.Drawing",
  "$image = [Windows.Forms.Clipboard]::GetImage()",
  "if ($image) { $stream = New-Object IO.MemoryStream; $image.Save($stream, [Drawing.Imaging.ImageFormat]::Png); [Convert]::ToBase64String($stream.ToArray()) }",
].join("; ");

/** The image on the clipboard, or why there is none to attach. */
export async function readClipboardImage(env: Record<string, string | undefined> = process.env, platform: NodeJS.Platform = process.platform): Promise<ClipboardImage> {
  if (platform === "darwin") {
    const result = await run(["osascript", "-e", "the clipboard as «class PNGf»"], env);
    if (result.exitCode === undefined) return { ok: false, reason: "Reading the clipboard needs osascript, which macOS provides" };
    const bytes = result.exitCode === 0 ? parseAppleScriptData(new TextDecoder().decode(result.stdout)) : undefined;
    return bytes ? asImage(bytes) : { ok: false, reason: NO_IMAGE };
  }
  if (platform === "win32") {
    const result = await run(["powershell", "-NoProfile", "-STA", "-Command", WINDOWS_SCRIPT], env);
    if (result.exitCode === undefined) return { ok: false, reason: "Reading the clipboard needs PowerShell" };
    const base64 = new TextDecoder().decode(result.stdout).trim();
    return asImage(Uint8Array.from(Buffer.from(base64, "base64")));
  }
  if (env.WAYLAND_DISPLAY) {
    return fromTypedClipboard(
      ["wl-paste", "--list-types"],
      (type) => ["wl-paste", "--no-newline", "--type", type],
      "Pasting images on Wayland needs wl-paste: install wl-clipboard",
      env,
    );
  }
  if (env.DISPLAY) {
    return fromTypedClipboard(
      ["xclip", "-selection", "clipboard", "-t", "TARGETS", "-o"],
      (type) => ["xclip", "-selection", "clipboard", "-t", type, "-o"],
      "Pasting images on X11 needs xclip: install it with your package manager",
      env,
    );
  }
  return { ok: false, reason: "No desktop clipboard here (over SSH, for one): paste or drop an image file's path instead" };
}
