/**
 * The rule notices and error lines are drawn with: others' words lose every escape but
 * colour, so an extension's coloured notify keeps its colour while a provider's, a
 * server's or a file's OSC (title, clipboard), cursor moves and lone ESCs are dropped.
 * (Through the binary: test/ai/verbose-errors.test.ts, test/modes/interactive/themes.test.ts.)
 */
import { describe, expect, test } from "bun:test";
import { inertKeepingColour } from "../../../src/tools/inert-text.ts";

describe("inertKeepingColour", () => {
  test("colour stays; OSC, cursor moves, screen clears and lone ESCs go", () => {
    expect(inertKeepingColour("\x1b[31mred\x1b[0m plain")).toBe("\x1b[31mred\x1b[0m plain");
    expect(inertKeepingColour("a\x1b]52;c;aGk=\x07b\x1b]2;title\x1b\\c")).toBe("abc");
    expect(inertKeepingColour("x\x1b[2J\x1b[Hy\x1b[201~z")).toBe("xyz");
    // An OSC cut by a colour sequence leaves only harmless text (its ESC goes; "]" is no sequence alone).
    expect(inertKeepingColour("\x1b]0;\x1b[31mX\x07")).toBe("]0;\x1b[31mX");
    expect(inertKeepingColour("plain text")).toBe("plain text");
    // 8-bit controls: U+009B is CSI and U+009D is OSC to some terminals.
    expect(inertKeepingColour("a\u009b2Jb\u009d52;c;aGk=\u0007c")).toBe("a2Jb52;c;aGk=c");
  });
});
