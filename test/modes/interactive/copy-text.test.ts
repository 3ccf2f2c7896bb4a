/**
 * Which way a copy goes (src/modes/interactive/copy-text.ts), for the cases a tmux
 * pane cannot stage: an SSH session, a desktop whose clipboard program fails, a text
 * too long for OSC 52. (The pane tests cover a headless copy and a desktop's program.)
 */
import { describe, expect, test } from "bun:test";
import { copyText, MAX_OSC52_BASE64 } from "../../../src/modes/interactive/copy-text.ts";

function routes(env: Record<string, string>, program: (text: string) => Promise<void> = async () => undefined) {
  const written: string[] = [];
  const copied: string[] = [];
  return {
    written,
    copied,
    routes: {
      env,
      platform: "linux" as const,
      writeTerminal: (sequence: string) => written.push(sequence),
      program: async (text: string) => {
        await program(text);
        copied.push(text);
      },
    },
  };
}

describe("copying text", () => {
  test("a desktop: the clipboard program only", async () => {
    const { written, copied, routes: r } = routes({ DISPLAY: ":0" });
    expect(await copyText("hello", r)).toEqual({ ok: true, via: "the clipboard program" });
    expect(copied).toEqual(["hello"]);
    expect(written).toEqual([]);
  });

  test("no desktop: OSC 52 only", async () => {
    const { written, copied, routes: r } = routes({});
    expect(await copyText("hello", r)).toEqual({ ok: true, via: "the terminal (OSC 52)" });
    expect(copied).toEqual([]);
    expect(written).toEqual([`\x1b]52;c;${Buffer.from("hello").toString("base64")}\x07`]);
  });

  test("over SSH with a desktop too: both, since the person's clipboard is the client's", async () => {
    const { written, copied, routes: r } = routes({ DISPLAY: ":0", SSH_CONNECTION: "10.0.0.1 5 10.0.0.2 22" });
    expect(await copyText("hello", r)).toEqual({ ok: true, via: "the clipboard program and the terminal (OSC 52)" });
    expect(copied).toEqual(["hello"]);
    expect(written).toHaveLength(1);
  });

  test("XCSH_CLIPBOARD_OSC52=1 (or pi's PI_CLIPBOARD_OSC52=1) asks for OSC 52 as well", async () => {
    for (const name of ["XCSH_CLIPBOARD_OSC52", "PI_CLIPBOARD_OSC52"]) {
      const { written, routes: r } = routes({ DISPLAY: ":0", [name]: "1" });
      expect((await copyText("x", r)).ok).toBe(true);
      expect(written).toHaveLength(1);
    }
  });

  test("a desktop whose program fails: OSC 52 is still sent, and the failure is said", async () => {
    const { written, routes: r } = routes({ WAYLAND_DISPLAY: "wayland-0" }, async () => {
      throw new Error("No clipboard program found (looked for wl-copy, xclip)");
    });
    expect(await copyText("hello", r)).toEqual({ ok: false, reason: "No clipboard program found (looked for wl-copy, xclip) (sent to the terminal as OSC 52 instead)" });
    expect(written).toHaveLength(1);
  });

  test("too long for OSC 52 with no program: nothing is written, and that is said", async () => {
    const { written, routes: r } = routes({});
    const outcome = await copyText("x".repeat((MAX_OSC52_BASE64 / 4) * 3 + 3), r);
    expect(outcome.ok).toBe(false);
    expect(written).toEqual([]);
  });
});
