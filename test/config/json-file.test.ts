import { describe, expect, test } from "bun:test";
import { locateJsonSyntaxError } from "../../src/config/json-file.ts";

describe("locateJsonSyntaxError", () => {
  test("finds nothing wrong in valid JSON", () => {
    for (const text of [
      "{}",
      "[]",
      ' { "a": [1, -2.5e3, true, false, null, "x\\n\\u00e9\\"", {"b": {}}] } ',
      '"just a string"',
      "0",
    ]) {
      expect(JSON.parse(text)).toBeDefined();
      expect(locateJsonSyntaxError(text)).toBeUndefined();
    }
  });

  test("points at the offending character with a reason", () => {
    const cases: [string, number, string][] = [
      ['{"a": 1,}', 7, "trailing comma before '}'"],
      ["[1, 2,]", 5, "trailing comma before ']'"],
      ['{"a" 1}', 5, "expected ':' after the property name"],
      ["{a: 1}", 1, "expected a property name in double quotes"],
      ['{"a": "b}', 6, "unterminated string"],
      ['{"a": "\\x"}', 7, 'invalid escape "\\x"'],
      ['{"a": tru}', 6, 'unexpected character "t"'],
      ['{"a": 1} extra', 9, "after the end of the JSON value"],
      ['{"a": 1', 7, "expected ',' or '}' but found end of file"],
      ["{'a': 1}", 1, "expected a property name in double quotes but found character \"'\""],
    ];
    for (const [text, offset, message] of cases) {
      const found = locateJsonSyntaxError(text);
      expect({ text, offset: found?.offset }).toEqual({ text, offset });
      expect(found?.message).toContain(message);
    }
  });
});

describe("deeply nested files", () => {
  test("a models.json or settings.json nested past the limit is an error naming the file, not a crash", async () => {
    const { mkdtempSync, writeFileSync, rmSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { tmpdir } = await import("node:os");
    const { readJsonFile, MAX_CONFIG_DEPTH } = await import("../../src/config/json-file.ts");
    const dir = mkdtempSync(join(tmpdir(), "xcsh-deep-"));
    try {
      const deep = join(dir, "models.json");
      writeFileSync(deep, `{"providers":${"[".repeat(100_000)}${"]".repeat(100_000)}}`);
      expect(() => readJsonFile(deep)).toThrow(`${deep}: is nested 100001 levels deep; a config file may nest at most ${MAX_CONFIG_DEPTH} levels`);
      const broken = join(dir, "settings.json");
      writeFileSync(broken, `{"a":${'{"b":'.repeat(20_000)}`);
      expect(() => readJsonFile(broken)).toThrow("is nested 20001 levels deep");
      // Brackets inside strings do not count; the limit itself is fine.
      const fine = join(dir, "ok.json");
      writeFileSync(fine, `{"s":"${"[".repeat(500)}","n":${"[".repeat(MAX_CONFIG_DEPTH - 1)}${"]".repeat(MAX_CONFIG_DEPTH - 1)}}`);
      expect(readJsonFile(fine)).toMatchObject({ s: "[".repeat(500) });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
