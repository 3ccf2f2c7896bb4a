/**
 * What an exported page shows of a session, decided without I/O: the header,
 * every entry of the tree (the page draws the tree and any branch of it), the
 * active leaf, and the totals a reader looks for first — tokens and cost over the
 * whole tree and over the active branch (answers, summaries and pi's usage
 * entries), and the models used. The page's
 * script receives exactly this object as JSON.
 */
import type { Usage } from "../ai/types.ts";
import { pathToEntry } from "../session/build-context.ts";
import type { SessionEntry, SessionHeader } from "../session/types.ts";

export interface UsageTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  totalTokens: number;
  cost: number;
  /** Assistant messages counted. */
  responses: number;
}

export interface SessionPageData {
  header: SessionHeader;
  /** The display name (last session_info), if any. */
  name?: string;
  /** The active branch's last entry; null for an empty session. */
  leafId: string | null;
  entries: readonly SessionEntry[];
  totals: { all: UsageTotals; activeBranch: UsageTotals };
  /** "provider/model" of every assistant message, in order of first use. */
  models: string[];
  exportedAt: string;
  generator: string;
}

export interface SessionSnapshot {
  header: SessionHeader;
  entries: readonly SessionEntry[];
  leafId: string | null;
}

const emptyTotals = (): UsageTotals => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: 0, responses: 0 });

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** The usage an entry adds to the totals: an answer's, a summary's, a usage entry's (pi 0.87.1), a tool result's. */
function usageOf(entry: SessionEntry): Partial<Usage> | undefined {
  switch (entry.type) {
    case "message":
      return entry.message?.role === "assistant" || entry.message?.role === "toolResult" ? (entry.message as { usage?: Partial<Usage> }).usage : undefined;
    case "usage":
    case "compaction":
    case "branch_summary":
      return entry.usage;
    default:
      return undefined;
  }
}

function addUsage(totals: UsageTotals, entry: SessionEntry): void {
  if (entry.type === "message" && entry.message?.role === "assistant") totals.responses++;
  // Files written by other tools may lack usage or parts of it.
  const usage = usageOf(entry);
  if (!usage || typeof usage !== "object") return;
  totals.input += num(usage.input);
  totals.output += num(usage.output);
  totals.cacheRead += num(usage.cacheRead);
  totals.cacheWrite += num(usage.cacheWrite);
  totals.totalTokens += num(usage.totalTokens);
  totals.cost += num(usage.cost?.total);
}

export function buildPageData(snapshot: SessionSnapshot, generator: string, now = new Date()): SessionPageData {
  const all = emptyTotals();
  const activeBranch = emptyTotals();
  const models = new Set<string>();
  const byId = new Map<string, SessionEntry>();
  let name: string | undefined;
  for (const entry of snapshot.entries) {
    byId.set(entry.id, entry);
    addUsage(all, entry);
    if (entry.type === "message" && entry.message?.role === "assistant") models.add(`${entry.message.provider}/${entry.message.model}`);
    else if (entry.type === "session_info") name = entry.name?.trim() || undefined;
  }
  if (snapshot.leafId !== null) for (const entry of pathToEntry(snapshot.leafId, byId)) addUsage(activeBranch, entry);
  return {
    header: snapshot.header,
    ...(name ? { name } : {}),
    leafId: snapshot.leafId,
    entries: snapshot.entries,
    totals: { all, activeBranch },
    models: [...models],
    exportedAt: now.toISOString(),
    generator,
  };
}
