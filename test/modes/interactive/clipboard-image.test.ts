/**
 * Ctrl+V's clipboard reader against stand-ins for the desktop's tools: scripts
 * named wl-paste and xclip on a private PATH that answer as the real ones do,
 * with an image on the clipboard, text only, a failing tool, or none installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseAppleScriptData, readClipboardImage } from "../../../src/modes/interactive/clipboard-image.ts";

/** A 1×1 PNG. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "xcsh-clip-"));
  writeFileSync(join(dir, "pixel.png"), Buffer.from(PIXEL_PNG, "base64"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A PATH holding only the given scripts (and the shell they need). */
function toolsPath(name: string, tools: Record<string, string>): string {
  const bin = join(dir, name);
  rmSync(bin, { recursive: true, force: true });
  Bun.spawnSync(["mkdir", "-p", bin]);
  for (const [tool, body] of Object.entries(tools)) {
    writeFileSync(join(bin, tool), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, tool), 0o755);
  }
  return `${bin}:/usr/bin:/bin`;
}

const pixel = () => join(dir, "pixel.png");

describe("readClipboardImage", () => {
  test("X11: xclip's PNG target is attached as the image it holds", async () => {
    const PATH = toolsPath("x11", {
      xclip: `case "$*" in *TARGETS*) printf 'TARGETS\\nUTF8_STRING\\nimage/png\\n';; *image/png*) cat "${pixel()}";; *) exit 1;; esac`,
    });
    const result = await readClipboardImage({ PATH, DISPLAY: ":0" }, "linux");
    expect(result).toEqual({ ok: true, image: { type: "image", mimeType: "image/png", data: PIXEL_PNG } });
  });

  test("Wayland: wl-paste is asked for the first image type it lists", async () => {
    const PATH = toolsPath("wayland", {
      "wl-paste": `case "$*" in *--list-types*) printf 'text/plain\\nimage/png\\n';; *"--type image/png"*) cat "${pixel()}";; *) exit 1;; esac`,
    });
    const result = await readClipboardImage({ PATH, WAYLAND_DISPLAY: "wayland-0", DISPLAY: ":0" }, "linux");
    expect(result.ok && result.image.data).toBe(PIXEL_PNG);
  });

  test("text only on the clipboard: says there is no image", async () => {
    const PATH = toolsPath("text", { xclip: `printf 'TARGETS\\nUTF8_STRING\\n'` });
    expect(await readClipboardImage({ PATH, DISPLAY: ":0" }, "linux")).toEqual({ ok: false, reason: expect.stringContaining("no image") });
  });

  test("bytes that are not an image are refused, not attached", async () => {
    const PATH = toolsPath("garbage", { xclip: `case "$*" in *TARGETS*) printf 'image/png\\n';; *) printf 'not a png';; esac` });
    expect(await readClipboardImage({ PATH, DISPLAY: ":0" }, "linux")).toEqual({ ok: false, reason: expect.stringContaining("not a PNG") });
  });

  test("a tool that is not installed is named, with how to get it", async () => {
    const PATH = toolsPath("none", {});
    expect(await readClipboardImage({ PATH, DISPLAY: ":0" }, "linux")).toEqual({ ok: false, reason: expect.stringContaining("needs xclip") });
    expect(await readClipboardImage({ PATH, WAYLAND_DISPLAY: "w" }, "linux")).toEqual({ ok: false, reason: expect.stringContaining("install wl-clipboard") });
  });

  test("no display at all (SSH): suggests pasting a file's path", async () => {
    expect(await readClipboardImage({ PATH: "/usr/bin:/bin" }, "linux")).toEqual({ ok: false, reason: expect.stringContaining("image file's path") });
  });

  test("macOS's osascript data is decoded from its «data PNGf…» form", () => {
    const hex = Buffer.from(PIXEL_PNG, "base64").toString("hex").toUpperCase();
    expect(Buffer.from(parseAppleScriptData(`«data PNGf${hex}»\n`)!).toString("base64")).toBe(PIXEL_PNG);
    expect(parseAppleScriptData("some text")).toBeUndefined();
  });
});
