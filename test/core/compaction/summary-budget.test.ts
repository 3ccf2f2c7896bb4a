/**
 * The sizes a summary request is planned with: every part of a split
 * transcript fits the budget, nothing is lost or reordered except what a
 * marker says was cut, and a window too small to summarize in is an error
 * that names the model.
 */
import { describe, expect, test } from "bun:test";
import { cutToFit, describeSize, promptCharBudget, splitIntoParts, transcriptCharBudget } from "../../../src/core/compaction/summary-budget.ts";

describe("cutToFit", () => {
  test("leaves text that fits alone", () => {
    expect(cutToFit("short", 100, "x")).toBe("short");
  });

  test("keeps the beginning and the end around a marker, within the limit", () => {
    const text = `FIRST LINE\n${"y".repeat(50_000)}\nLAST LINE`;
    const cut = cutToFit(text, 2000, "tool output");
    expect(cut.length).toBeLessThanOrEqual(2000);
    expect(cut.startsWith("FIRST LINE")).toBe(true);
    expect(cut.endsWith("LAST LINE")).toBe(true);
    expect(cut).toMatch(/\[… 4\d\.\d KB of tool output omitted …\]/);
  });

  test("a limit smaller than the marker still gives a bounded text", () => {
    const cut = cutToFit("z".repeat(10_000), 10, "x");
    expect(cut).toContain("omitted");
    expect(cut.length).toBeLessThan(100);
  });
});

describe("describeSize", () => {
  test("counts bytes for large texts, characters for small ones", () => {
    expect(describeSize("a".repeat(20_000_000))).toBe("19.1 MB");
    expect(describeSize("a".repeat(20_480))).toBe("20.0 KB");
    expect(describeSize("héllo")).toBe("5 characters");
  });
});

describe("splitIntoParts", () => {
  test("packs blocks in order into parts that each fit", () => {
    const blocks = Array.from({ length: 50 }, (_, index) => `[block ${index}] ${"w".repeat(100 + ((index * 37) % 400))}`);
    const parts = splitIntoParts(blocks, 1000);
    expect(parts.length).toBeGreaterThan(5);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(1000);
    expect(parts.join("\n\n")).toBe(blocks.join("\n\n"));
  });

  test("a block bigger than a part is cut to fit; the order stays", () => {
    const parts = splitIntoParts(["small one", "B".repeat(10_000), "small two"], 1000);
    for (const part of parts) expect(part.length).toBeLessThanOrEqual(1000);
    const all = parts.join("\n\n");
    expect(all).toMatch(/^small one\n\nB+\n\[… 9088 characters of this message omitted …\]\nB+\n\nsmall two$/);
  });

  test("no blocks is one empty part", () => {
    expect(splitIntoParts([], 1000)).toEqual([""]);
  });
});

describe("budgets", () => {
  test("an unknown window plans no parts", () => {
    expect(promptCharBudget({ contextWindow: 0 }, 1000)).toBeUndefined();
    expect(transcriptCharBudget({ contextWindow: 0, id: "m" }, 1000, 500)).toBeUndefined();
  });

  test("the transcript gets what the window leaves beside the answer and the fixed prompt", () => {
    // 8000 tokens × 0.8 = 6400, less 1600 for the answer: 4800 tokens, 19200 characters.
    expect(promptCharBudget({ contextWindow: 8000 }, 1600)).toBe(19_200);
    expect(transcriptCharBudget({ contextWindow: 8000, id: "m" }, 1600, 8000)).toBe(11_200);
  });

  test("a window too small to summarize in is an error naming the model", () => {
    expect(() => transcriptCharBudget({ contextWindow: 1000, id: "tiny-model" }, 600, 500)).toThrow(/tiny-model \(1000 tokens\) is too small/);
  });
});
