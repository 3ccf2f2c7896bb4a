/**
 * The byte prefilter of a regex grep: the literal every match must contain. It
 * may give up (undefined), but it must never name text a matching line lacks —
 * that would hide matches. A randomized check holds it to that.
 */
import { describe, expect, test } from "bun:test";
import { requiredLiteral } from "../../src/tools/grep-literals.ts";
import { createLineMatcher } from "../../src/tools/grep-search.ts";

describe("requiredLiteral", () => {
  test.each([
    ["needle_\\d+ marks", "needle_"],
    ["colou?r", "colo"],
    ["foo(bar)?baz", "foo"],
    ["\\.config\\.ts$", ".config.ts"],
    ["^import .* from", "import "],
    ["\\x41bcd", "bcd"],
    ["\\p{L}+word", "word"],
    ["(?<n>a)\\k<n>tail", "tail"],
    ["a|b", undefined],
    ["[abc]", undefined],
  ])("%p requires %p", (pattern, literal) => {
    expect(requiredLiteral(pattern)).toBe(literal);
  });

  test("never names text that a matching line lacks (randomized)", () => {
    const atoms = ["a", "b", "ab", "\\.", ".", "\\d", "[ab]", "(ab)", "(a|b)", "x", "\\x61", "\\u0062", "\\\\", "-"];
    const quantifiers = ["", "", "", "?", "*", "+", "{0,2}", "{2}", "{1,}"];
    const alphabet = "ab.x1-\\";
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    let checked = 0;
    for (let round = 0; round < 3000; round++) {
      let pattern = "";
      for (let i = 0, n = 1 + random(5); i < n; i++) pattern += atoms[random(atoms.length)] + quantifiers[random(quantifiers.length)];
      let regex: RegExp;
      try {
        regex = new RegExp(pattern);
      } catch {
        continue;
      }
      const literal = requiredLiteral(pattern);
      if (literal === undefined) continue;
      for (let j = 0; j < 20; j++) {
        let line = "";
        for (let k = 0, n = random(12); k < n; k++) line += alphabet[random(alphabet.length)];
        if (regex.test(line)) {
          checked++;
          expect({ pattern, line, contains: line.includes(literal) }).toEqual({ pattern, line, contains: true });
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  test("a regex grep uses its literals as byte needles, rarest first, but not case-insensitively when case matters", () => {
    const needles = (pattern: string, ignoreCase = false) => createLineMatcher({ pattern, literal: false, ignoreCase }).needles.map(String);
    expect(needles("needle_\\d+")).toEqual(["needle_"]);
    expect(needles("function\\s+\\w+Stream\\(")).toEqual(["Stream(", "function"]);
    expect(needles("needle_\\d+", true)).toEqual([]);
    expect(needles("_-\\d+", true)).toEqual(["_-"]);
  });
});
