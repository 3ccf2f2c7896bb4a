/** The shortest unique starts of time-ordered session ids (src/session/id-prefix.ts). */
import { expect, test } from "bun:test";
import { uniqueIdPrefixes } from "../../src/session/id-prefix.ts";

test("ids of the same minute get the characters that tell them apart; a lone id keeps 8", () => {
  const prefixes = uniqueIdPrefixes(["019abc12-3456-7000", "019abc12-3499-7000", "019abd00-0000-7000"]);
  expect(prefixes.get("019abc12-3456-7000")).toBe("019abc12-345");
  expect(prefixes.get("019abc12-3499-7000")).toBe("019abc12-349");
  expect(prefixes.get("019abd00-0000-7000")).toBe("019abd00");
  // Each start names exactly one id.
  for (const [id, prefix] of prefixes) expect([...prefixes.keys()].filter((other) => other.startsWith(prefix))).toEqual([id]);
});
