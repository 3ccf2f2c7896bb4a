/**
 * `ctx.navigateTree(targetId, options)`: moves the session's position to another
 * entry of its tree, optionally leaving a summary of the branch being left
 * (session_before_tree may cancel the move or supply that summary; session_tree
 * reports it). The next prompt continues from the new position.
 */
import type { AgentMessage } from "../agent/types.ts";
import type { ExtensionRunner } from "../extensions/runner.ts";
import type { NavigateTreeOptions, TreePreparation } from "../extensions/types.ts";
import type { BranchSummaryEntry } from "../session/types.ts";
import type { AgentSession } from "./agent-session.ts";
import { effectiveReserveTokens, generateSummary } from "./compaction/index.ts";
import { BRANCH_SUMMARY_RESERVE_TOKENS } from "../config/settings.ts";

export async function navigateTree(
  session: AgentSession,
  runner: ExtensionRunner,
  targetId: string,
  options: NavigateTreeOptions = {},
): Promise<{ cancelled: boolean }> {
  const manager = session.sessionManager;
  if (!manager.getEntry(targetId)) throw new Error(`No entry with id ${targetId} in this session`);
  const oldLeafId = manager.getLeafId();
  const targetPath = new Set(manager.getBranch(targetId).map((entry) => entry.id));
  const oldBranch = oldLeafId ? manager.getBranch(oldLeafId) : [];
  const common = oldBranch.filter((entry) => targetPath.has(entry.id)).at(-1);
  const preparation: TreePreparation = {
    targetId,
    oldLeafId,
    commonAncestorId: common?.id ?? null,
    entriesToSummarize: oldBranch.filter((entry) => !targetPath.has(entry.id)),
    userWantsSummary: options.summarize === true,
    ...(options.customInstructions ? { customInstructions: options.customInstructions } : {}),
    ...(options.replaceInstructions !== undefined ? { replaceInstructions: options.replaceInstructions } : {}),
    ...(options.label ? { label: options.label } : {}),
  };
  const controller = new AbortController();
  const decision = await runner.emit("session_before_tree", { type: "session_before_tree", preparation, signal: controller.signal });
  if (decision?.cancel) return { cancelled: true };
  await session.abort();

  const fromExtension = typeof decision?.summary?.summary === "string";
  let summary: { summary: string; details?: unknown } | undefined = fromExtension ? decision.summary : undefined;
  if (!summary && options.summarize && preparation.entriesToSummarize.length > 0) {
    const messages = preparation.entriesToSummarize.flatMap((entry): AgentMessage[] => (entry.type === "message" ? [entry.message] : []));
    const instructions = decision?.customInstructions ?? options.customInstructions;
    // pi 1.x: a branch summary has its own reserve (branchSummary.reserveTokens), not compaction's.
    const reserve = effectiveReserveTokens(session.settings.branchSummary?.reserveTokens ?? BRANCH_SUMMARY_RESERVE_TOKENS, session.model.contextWindow);
    const text = await generateSummary(messages, session.model, reserve, await session.models.apiKeyFor(session.model), {
      customInstructions: instructions,
      headers: await session.models.headersFor(session.model),
      env: session.registry.getProviderEnv(session.model),
    });
    summary = { summary: text };
  }

  let summaryEntry: BranchSummaryEntry | undefined;
  const label = decision?.label ?? options.label;
  if (summary) {
    const id = manager.branchWithSummary(targetId, summary.summary, summary.details, fromExtension || undefined);
    summaryEntry = manager.getEntry(id) as BranchSummaryEntry;
    if (label) manager.appendLabelChange(id, label);
  } else {
    manager.branch(targetId);
    if (label) manager.appendLabelChange(targetId, label);
  }
  session.agent.state.messages = manager.buildSessionContext().messages;
  session.tools.branchChanged();
  await runner.emit("session_tree", {
    type: "session_tree",
    newLeafId: manager.getLeafId(),
    oldLeafId,
    ...(summaryEntry ? { summaryEntry, fromExtension } : {}),
  });
  return { cancelled: false };
}
