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
