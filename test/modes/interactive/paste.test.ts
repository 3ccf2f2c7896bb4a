/**
 * Pasting into the editor, as a terminal delivers it (bracketed paste, here
 * through tmux's paste-buffer -p): a large text arrives whole in the prompt, and
 * the path of an image file attaches the image, and stays attached to a message
 * that Esc takes back out of the queue; Ctrl+V attaches the clipboard's image.
 */
import { expect, test } from "bun:test";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { send, withPane } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

/** A 1×1 PNG. */
const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** Pastes `text` as a terminal would: tmux sends it bracketed, as the application asked. */
function paste(pane: XcshPane, text: string, scratch: string): void {
  const file = join(scratch, "paste.txt");
  writeFileSync(file, text);
  pane.tmux(["load-buffer", "-b", "test-paste", file]);
  pane.tmux(["paste-buffer", "-p", "-b", "test-paste", "-t", "main"]);
}

function lastUserContent(request: { body: any } | undefined): unknown {
  return request?.body?.messages?.filter((message: { role: string }) => message.role === "user").at(-1)?.content;
}

test("a pasted 20 000-character text reaches the model whole", async () => {
  await withPane(async ({ fake, project, pane }) => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${String(i).padStart(3, "0")} ${"x".repeat(40)}`);
    const text = lines.join("\n");
    fake.server.enqueue({ content: [{ type: "text", text: "Got the paste." }] });
    paste(pane, text, project);
    await Bun.sleep(300);
    pane.keys("Enter");
    await pane.waitFor("Got the paste.");
    const content = lastUserContent(fake.server.requests.at(-1));
    const sent = typeof content === "string" ? content : JSON.stringify(content);
    expect(sent).toContain("line 000");
    expect(sent).toContain("line 399");
    expect(sent.split("line ").length - 1).toBe(400);
  });
});

test("pasting the path of an image file attaches the image to the next prompt", async () => {
  await withPane(
    async ({ fake, project, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "A tiny image." }] });
      paste(pane, join(project, "pixel.png"), project);
      await Bun.sleep(300);
      pane.type("what is this?");
      pane.keys("Enter");
      await pane.waitFor("A tiny image.");
      const content = JSON.stringify(lastUserContent(fake.server.requests.at(-1)));
      expect(content).toContain(PIXEL_PNG.slice(0, 40));
      expect(content).toContain("what is this?");
    },
    {
      // A model that takes images: a text-only one gets a placeholder instead.
      models: [{ id: "vision", input: ["text", "image"] }],
      before: (_fake, project) => writeFileSync(join(project, "pixel.png"), Buffer.from(PIXEL_PNG, "base64")),
    },
  );
});

test("an image on a message still queued when Esc aborts comes back with it and goes with the next prompt", async () => {
  await withPane(
    async ({ fake, project, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "A slow answer, one word at a time, taking its time to finish properly." }], chunkSize: 1, chunkDelayMs: 150 });
      send(pane, "start");
      await pane.waitFor("A slow");
      paste(pane, join(project, "pixel.png"), project);
      await pane.waitFor("[image #1]");
      pane.type("look at this");
      pane.keys("Enter");
      await pane.waitFor("steer: [image #1] look at this");
      pane.keys("Escape");
      await pane.waitFor("Aborted");
      await pane.waitFor((screen) => !screen.includes("steer:") && /\[image #1\] look at this\s*$/m.test(screen));

      fake.server.enqueue({ content: [{ type: "text", text: "Seen it." }] });
      pane.keys("Enter");
      await pane.waitFor("Seen it.");
      const content = JSON.stringify(lastUserContent(fake.server.requests.at(-1)));
      expect(content).toContain(PIXEL_PNG.slice(0, 40));
      expect(content).toContain("look at this");
    },
    {
      models: [{ id: "vision", input: ["text", "image"] }],
      before: (_fake, project) => writeFileSync(join(project, "pixel.png"), Buffer.from(PIXEL_PNG, "base64")),
    },
  );
});

test("Ctrl+V attaches the clipboard's image (X11, through xclip) to the next prompt", async () => {
  const bin = mkdtempSync(join(tmpdir(), "xcsh-clip-bin-"));
  const png = join(bin, "clip.png");
  writeFileSync(png, Buffer.from(PIXEL_PNG, "base64"));
  writeFileSync(join(bin, "xclip"), `#!/bin/sh\ncase "$*" in *TARGETS*) printf 'TARGETS\\nimage/png\\n';; *image/png*) cat "${png}";; *) exit 1;; esac\n`);
  chmodSync(join(bin, "xclip"), 0o755);
  try {
    await withPane(
      async ({ fake, pane }) => {
        pane.keys("C-v");
        await pane.waitFor("[image #1]");
        pane.type("what is on my clipboard?");
        fake.server.enqueue({ content: [{ type: "text", text: "A single pixel." }] });
        pane.keys("Enter");
        await pane.waitFor("A single pixel.");
        const content = JSON.stringify(lastUserContent(fake.server.requests.at(-1)));
        expect(content).toContain(PIXEL_PNG.slice(0, 40));
        expect(content).toContain("what is on my clipboard?");
      },
      { models: [{ id: "vision", input: ["text", "image"] }], env: { PATH: `${bin}:${process.env.PATH}`, DISPLAY: ":0" } },
    );
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});

test("Ctrl+V with no image on the clipboard says so and attaches nothing", async () => {
  const bin = mkdtempSync(join(tmpdir(), "xcsh-clip-bin-"));
  writeFileSync(join(bin, "xclip"), `#!/bin/sh\nprintf 'TARGETS\\nUTF8_STRING\\n'\n`);
  chmodSync(join(bin, "xclip"), 0o755);
  try {
    await withPane(
      async ({ pane }) => {
        pane.keys("C-v");
        const screen = await pane.waitFor("no image");
        expect(screen).not.toContain("[image #");
      },
      { env: { PATH: `${bin}:${process.env.PATH}`, DISPLAY: ":0" } },
    );
  } finally {
    rmSync(bin, { recursive: true, force: true });
  }
});
