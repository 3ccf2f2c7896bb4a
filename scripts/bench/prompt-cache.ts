/**
 * A simulation of the providers' prompt caches, for the token-cost bench: given a
 * request body as the fake LLM server recorded it and the simulated time, it says
 * how many prompt tokens the provider would have read from its cache, written to
 * it and charged as plain input — so two agents can be compared on what a session
 * would cost, without a real API.
 *
 * What is simulated, from the providers' documentation:
 * - Anthropic Messages: explicit `cache_control` breakpoints; at each breakpoint the
 *   service looks for a cached prefix ending there or at up to 20 blocks before it;
 *   a prefix under 1,024 tokens is never cached; entries live 5 minutes, or 1 hour
 *   with `ttl: "1h"`, and a read refreshes them. Writes cost 1.25× (5 min) or 2×
 *   (1 h) the input price, reads 0.1×.
 * - OpenAI Responses and Chat Completions: automatic prefix caching of prompts of
 *   1,024 tokens or more, hits counted in 128-token steps, keyed by the prefix and
 *   by `prompt_cache_key`; entries live 5 minutes idle (the documented lower bound)
 *   or 24 hours with `prompt_cache_retention: "24h"`. No write surcharge.
 * - Gemini: implicit caching, prefix-based, 1,024-token minimum, 5 minutes.
 *
 * Tokens are counted by one deterministic rule for every agent: a block's JSON
 * text, 4 characters to a token (rounded up). Prefixes are compared block by block
 * (a block is a tool definition, a system text, one message content block or
 * one input item), so a change inside a block invalidates the whole block.
 */
import { createHash } from "node:crypto";
import type { FakeApi } from "../../test/support/fake-llm/script.ts";

export interface CacheUsage {
  /** Prompt tokens charged at the plain input price. */
  input: number;
  cacheRead: number;
  /** Tokens written at the 5-minute (or automatic) rate. */
  cacheWrite: number;
  /** Tokens written at the 1-hour rate (Anthropic `ttl: "1h"`). */
  cacheWriteLong: number;
}

interface Block {
  text: string;
  tokens: number;
  /** Seconds this block's breakpoint keeps the prefix (Anthropic), undefined when it is no breakpoint. */
  breakpointTtl?: number;
}

const MINIMUM_PREFIX = 1024;
const LOOKBACK_BLOCKS = 20;
const OPENAI_STEP = 128;
const FIVE_MINUTES = 300;

export const countTokens = (text: string): number => Math.ceil(text.length / 4);

function block(value: unknown, breakpointTtl?: number): Block {
  const text = JSON.stringify(value) ?? "";
  return { text, tokens: countTokens(text), breakpointTtl };
}

function ttlOf(marker: unknown): number | undefined {
  if (!marker || typeof marker !== "object") return undefined;
  return (marker as { ttl?: string }).ttl === "1h" ? 3600 : FIVE_MINUTES;
}

/** The request's prompt as blocks, in the order the provider caches it (tools, system, messages). */
export function blocksOf(api: FakeApi, body: any): Block[] {
  const blocks: Block[] = [];
  if (api === "anthropic-messages") {
    for (const tool of body.tools ?? []) {
      const { cache_control, ...rest } = tool;
      blocks.push(block(rest, ttlOf(cache_control)));
    }
    const system = typeof body.system === "string" ? [{ type: "text", text: body.system }] : (body.system ?? []);
    for (const part of system) {
      const { cache_control, ...rest } = part;
      blocks.push(block(rest, ttlOf(cache_control)));
    }
    for (const message of body.messages ?? []) {
      const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      content.forEach((part: any, index: number) => {
        const { cache_control, ...rest } = part;
        blocks.push(block(index === 0 ? { role: message.role, ...rest } : rest, ttlOf(cache_control)));
      });
    }
  } else if (api === "openai-responses") {
    for (const tool of body.tools ?? []) blocks.push(block(tool));
    if (body.instructions) blocks.push(block(body.instructions));
    for (const item of typeof body.input === "string" ? [body.input] : (body.input ?? [])) blocks.push(block(item));
  } else if (api === "openai-completions") {
    for (const tool of body.tools ?? []) blocks.push(block(tool));
    for (const message of body.messages ?? []) blocks.push(block(message));
  } else {
    for (const tool of body.tools ?? []) blocks.push(block(tool));
    if (body.systemInstruction) blocks.push(block(body.systemInstruction));
    for (const content of body.contents ?? []) blocks.push(block(content));
  }
  return blocks;
}

/** Hash of each prefix: entry i covers blocks 0..i. */
function prefixHashes(scope: string, blocks: Block[]): string[] {
  const hash = createHash("sha256").update(scope);
  return blocks.map((b) => hash.update("\u0000" + b.text).copy().digest("hex"));
}

function cumulative(blocks: Block[]): number[] {
  let total = 0;
  return blocks.map((b) => (total += b.tokens));
}

/** One provider's cache, across every request of one agent's session. */
export class PromptCache {
  private readonly entries = new Map<string, number>();

  constructor(readonly api: FakeApi) {}

  private alive(hash: string, now: number): boolean {
    const expires = this.entries.get(hash);
    return expires !== undefined && expires > now;
  }

  /** Accounts one request at simulated time `now` (seconds) and updates the cache. */
  account(body: any, now: number): CacheUsage {
    const blocks = blocksOf(this.api, body);
    const sums = cumulative(blocks);
    const total = sums.at(-1) ?? 0;
    if (this.api === "anthropic-messages") return this.anthropic(blocks, sums, total, now);
    const scope = this.api === "google-generative-ai" ? "" : String(body.prompt_cache_key ?? "");
    const ttl = body.prompt_cache_retention === "24h" ? 24 * 3600 : FIVE_MINUTES;
    return this.automatic(scope, blocks, sums, total, now, ttl, this.api !== "google-generative-ai");
  }

  private anthropic(blocks: Block[], sums: number[], total: number, now: number): CacheUsage {
    const hashes = prefixHashes("", blocks);
    const breakpoints = blocks.flatMap((b, i) => (b.breakpointTtl === undefined ? [] : [i]));
    // Each breakpoint looks for a cached prefix ending there or up to 20 blocks before it; the longest found is read.
    // Every entry found is used, which refreshes it for the lifetime its breakpoint asks for.
    let hit = -1;
    for (const point of breakpoints) {
      for (let i = point; i >= Math.max(0, point - LOOKBACK_BLOCKS); i--) {
        if (this.alive(hashes[i], now)) {
          hit = Math.max(hit, i);
          this.entries.set(hashes[i], Math.max(this.entries.get(hashes[i])!, now + blocks[point].breakpointTtl!));
          break;
        }
      }
    }
    const read = hit >= 0 ? sums[hit] : 0;
    // Every breakpoint past the hit whose prefix is long enough is written; the tokens up to the last one are charged as writes.
    let written = read;
    let writeShort = 0;
    let writeLong = 0;
    for (const point of breakpoints) {
      if (sums[point] <= read || sums[point] < MINIMUM_PREFIX) continue;
      const ttl = blocks[point].breakpointTtl!;
      const tokens = sums[point] - written;
      if (ttl > FIVE_MINUTES) writeLong += tokens;
      else writeShort += tokens;
      written = sums[point];
      this.entries.set(hashes[point], now + ttl);
    }
    return { input: total - written, cacheRead: read, cacheWrite: writeShort, cacheWriteLong: writeLong };
  }

  private automatic(scope: string, blocks: Block[], sums: number[], total: number, now: number, ttl: number, steps: boolean): CacheUsage {
    const hashes = prefixHashes(scope, blocks);
    let hit = -1;
    for (let i = blocks.length - 1; i >= 0; i--) {
      if (this.alive(hashes[i], now)) {
        hit = i;
        break;
      }
    }
    let read = hit >= 0 ? sums[hit] : 0;
    if (steps && read >= MINIMUM_PREFIX) read = MINIMUM_PREFIX + Math.floor((read - MINIMUM_PREFIX) / OPENAI_STEP) * OPENAI_STEP;
    if (read < MINIMUM_PREFIX) read = 0;
    // The whole prompt is cached (when long enough) for the next request; a hit refreshes its prefix.
    if (total >= MINIMUM_PREFIX) hashes.forEach((hash, i) => sums[i] >= MINIMUM_PREFIX && this.entries.set(hash, now + ttl));
    return { input: total - read, cacheRead: read, cacheWrite: 0, cacheWriteLong: 0 };
  }
}

/** List prices in dollars per million tokens (Sonnet class, applied to every API). */
export const PRICES = { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75, cacheWriteLong: 6 };

export function costOf(usage: CacheUsage, output: number): number {
  return (
    (usage.input * PRICES.input +
      usage.cacheRead * PRICES.cacheRead +
      usage.cacheWrite * PRICES.cacheWrite +
      usage.cacheWriteLong * PRICES.cacheWriteLong +
      output * PRICES.output) /
    1_000_000
  );
}
