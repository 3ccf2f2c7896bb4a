/**
 * What a click on a link in the fullscreen transcript hands the desktop's opener, when the
 * link came from a hostile model: only web and mail addresses, parsed and written back
 * (no stray whitespace), and never a mail link that attaches a local file. The opener
 * is a stand-in xdg-open on PATH that notes its argument. (The click itself, through the
 * binary in tmux, is test/modes/interactive/fullscreen.test.ts.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openLink } from "../../../src/modes/interactive/fullscreen/open-link.ts";

const bin = mkdtempSync(join(tmpdir(), "xcsh-opener-"));
const opened = join(bin, "opened.txt");
writeFileSync(join(bin, "xdg-open"), `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`, { mode: 0o755 });
const savedPath = process.env.PATH;
process.env.PATH = `${bin}:${savedPath}`;
afterAll(() => {
  process.env.PATH = savedPath;
  rmSync(bin, { recursive: true, force: true });
});
const openedSoFar = () => (existsSync(opened) ? readFileSync(opened, "utf8") : "");

describe("a link a hostile model wrote", () => {
  test("a mail link that asks to attach a file is refused; a plain one opens", async () => {
    expect(await openLink("mailto:a@example.com?subject=hi&attach=/home/me/.ssh/id_rsa", "linux")).toEqual({ ok: false, reason: "A mail link that attaches a file is not opened" });
    expect(await openLink("mailto:a@example.com?Attachment=~/.aws/credentials", "linux")).toEqual({ ok: false, reason: "A mail link that attaches a file is not opened" });
    expect(openedSoFar()).toBe("");
    expect(await openLink("mailto:a@example.com?subject=hi", "linux")).toEqual({ ok: true });
    expect(openedSoFar()).toBe("mailto:a@example.com?subject=hi\n");
  });

  test("the opener gets the address parsed and written back: no leading space, tab or raw space", async () => {
    rmSync(opened, { force: true });
    expect(await openLink(" https://Example.com/a b\t", "linux")).toEqual({ ok: true });
    expect(openedSoFar()).toBe("https://example.com/a%20b\n");
  });

  test("file:, javascript: and custom schemes are refused with a reason, the opener never runs", async () => {
    rmSync(opened, { force: true });
    for (const url of ["file:///etc/passwd", "javascript:alert(1)", "vscode://file/etc/passwd", "-a Calculator", "ssh://host"]) {
      expect(await openLink(url, "linux")).toEqual({ ok: false, reason: "Only web and mail links are opened" });
    }
    expect(openedSoFar()).toBe("");
  });
});
