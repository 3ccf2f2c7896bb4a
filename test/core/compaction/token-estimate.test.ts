import { describe, expect, test } from "bun:test";
import type { BashExecutionMessage } from "../../../src/agent/messages.ts";
import {
  calculateContextTokens,
  DEFAULT_COMPACTION_SETTINGS,
  estimateContextTokens,
  estimateTokens,
  getLastAssistantUsage,
  IMAGE_TOKEN_ESTIMATE,
  effectiveReserveTokens,
  keptTokensLimit,
  shouldCompact,
} from "../../../src/core/compaction/index.ts";
import { assistantMessage, PathBuilder, textOfTokens, toolCall, toolResult, usage, userMessage } from "./entries.ts";

describe("settings", () => {
  test("defaults are enabled, 16384 reserved, 20000 kept", () => {
    expect(DEFAULT_COMPACTION_SETTINGS).toEqual({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 });
  });
});

describe("calculateContextTokens", () => {
  test("prefers the reported total", () => {
    expect(calculateContextTokens({ ...usage(100, 20), cacheRead: 30, totalTokens: 150 })).toBe(150);
  });

  test("adds input, output and cache tokens when no total is reported", () => {
    expect(calculateContextTokens({ ...usage(100, 20), cacheRead: 30, cacheWrite: 7, totalTokens: 0 })).toBe(157);
  });
});

describe("estimateTokens", () => {
  test("counts a quarter token per character of user text, rounded up", () => {
    expect(estimateTokens(userMessage("abcdefgh"))).toBe(2);
    expect(estimateTokens(userMessage("abcdefghi"))).toBe(3);
  });

  test("counts text, thinking and tool-call arguments of an assistant message", () => {
    const args = { path: "src/a.ts" };
    const message = assistantMessage([
      { type: "thinking", thinking: "t".repeat(40) },
      { type: "text", text: "y".repeat(40) },
      toolCall("c1", "read", args),
    ]);
    const callChars = "read".length + JSON.stringify(args).length;
    expect(estimateTokens(message)).toBe(Math.ceil((80 + callChars) / 4));
  });

  test("counts an image as a fixed amount whatever its size", () => {
    const small = userMessage("");
    small.content = [{ type: "image", data: "AAAA", mimeType: "image/png" }];
    const large = userMessage("");
    large.content = [
      { type: "text", text: "look" },
      { type: "image", data: "A".repeat(400_000), mimeType: "image/png" },
    ];
    expect(estimateTokens(small)).toBe(IMAGE_TOKEN_ESTIMATE);
    expect(estimateTokens(large)).toBe(IMAGE_TOKEN_ESTIMATE + 1);
  });

  test("counts tool results and shell runs; a run kept out of the context counts nothing", () => {
    expect(estimateTokens(toolResult("c1", textOfTokens(50)))).toBe(50);
    const bash: BashExecutionMessage = {
      role: "bashExecution",
      command: "ls",
      output: "x".repeat(38),
      exitCode: 0,
      cancelled: false,
      truncated: false,
      timestamp: 1,
    };
    expect(estimateTokens(bash)).toBe(10);
    expect(estimateTokens({ ...bash, excludeFromContext: true })).toBe(0);
  });
});

describe("estimateContextTokens", () => {
  test("uses the last successful answer's usage and estimates only what came after", () => {
    const messages = [
      userMessage(textOfTokens(1000)),
      assistantMessage("ok", { usage: usage(5000, 100) }),
      userMessage(textOfTokens(30)),
      assistantMessage("failed", { usage: usage(9999), stopReason: "error" }),
      userMessage(textOfTokens(20)),
    ];
    const estimate = estimateContextTokens(messages);
    expect(estimate.lastUsageIndex).toBe(1);
    expect(estimate.usageTokens).toBe(5100);
    expect(estimate.trailingTokens).toBe(30 + estimateTokens(messages[3]) + 20);
    expect(estimate.tokens).toBe(estimate.usageTokens + estimate.trailingTokens);
  });

  test("estimates everything when no answer reported usage", () => {
    const estimate = estimateContextTokens([userMessage(textOfTokens(10)), userMessage(textOfTokens(5))]);
    expect(estimate).toEqual({ tokens: 15, usageTokens: 0, trailingTokens: 15, lastUsageIndex: null });
  });
});

describe("getLastAssistantUsage", () => {
  test("returns the newest successful answer's usage, skipping aborted ones", () => {
    const path = new PathBuilder();
    path.user("hi");
    path.assistant("first", { usage: usage(100) });
    path.user("again");
    path.assistant("second", { usage: usage(200) });
    path.assistant("", { usage: usage(1), stopReason: "aborted" });
    path.modelChange();
    expect(getLastAssistantUsage(path.entries)?.input).toBe(200);
  });

  test("ignores answers from before the latest compaction", () => {
    const path = new PathBuilder();
    const first = path.user("hi");
    path.assistant("answer", { usage: usage(150_000) });
    path.compaction("summary", first.id);
    expect(getLastAssistantUsage(path.entries)).toBeUndefined();
    path.user("next");
    path.assistant("fresh", { usage: usage(3000) });
    expect(getLastAssistantUsage(path.entries)?.input).toBe(3000);
  });
});

describe("shouldCompact", () => {
  const settings = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };

  test("triggers only once the context exceeds window minus reserve", () => {
    expect(shouldCompact(200_000 - 16_384, 200_000, settings)).toBe(false);
    expect(shouldCompact(200_000 - 16_384 + 1, 200_000, settings)).toBe(true);
  });

  test("never triggers when disabled", () => {
    expect(shouldCompact(1_000_000, 200_000, { ...settings, enabled: false })).toBe(false);
  });

  test("in a small window the reserve is at most a quarter of it, so a one-line answer does not trigger it", () => {
    // An 8000-token window: the default reserve would leave no room at all.
    expect(effectiveReserveTokens(16_384, 8000)).toBe(2000);
    expect(shouldCompact(1500, 8000, settings)).toBe(false);
    expect(shouldCompact(6000, 8000, settings)).toBe(false);
    expect(shouldCompact(6001, 8000, settings)).toBe(true);
    // From 64k up the configured reserve holds unchanged; a smaller configured one always does.
    expect(effectiveReserveTokens(16_384, 65_536)).toBe(16_384);
    expect(effectiveReserveTokens(16_384, 32_768)).toBe(8192);
    expect(effectiveReserveTokens(1000, 8000)).toBe(1000);
    expect(effectiveReserveTokens(16_384, 0)).toBe(16_384);
  });
});

describe("keptTokensLimit", () => {
  test("is half of what the effective reserve leaves of the window", () => {
    const settings = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };
    expect(keptTokensLimit(settings, 8000)).toBe(3000);
    expect(keptTokensLimit(settings, 200_000)).toBe(91_808);
    expect(keptTokensLimit(settings, undefined)).toBeUndefined();
  });
});
