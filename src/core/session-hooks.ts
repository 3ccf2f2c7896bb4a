/**
 * The points where a session lets its extensions in: AgentSession, model
 * control and navigation call these when a hook object is installed, and
 * behave exactly as before when none is (no extension configured). The one
 * implementation is core/extension-bindings.ts.
 */
import type { AgentEvent, AgentMessage } from "../agent/types.ts";
import type { ImageContent, Model, ModelThinkingLevel } from "../ai/types.ts";
import type { AgentActivityOutcome, CompactionTrigger, SessionBeforeCompactResult, UserBashResult, InputSource } from "../extensions/types.ts";
import type { CompactionEntry, SessionEntry } from "../session/types.ts";

export interface RoutedInput {
  text: string;
  images?: ImageContent[];
}

/** Why a compaction runs, and whether the failed turn is sent again after it. */
export interface CompactionMoment {
  reason: CompactionTrigger;
  willRetry: boolean;
}

export interface CompactionFailure extends CompactionMoment {
  errorMessage?: string;
  aborted: boolean;
  fromExtension: boolean;
}

export interface SessionHooks {
  /** Before the session persists or reports an agent event; may replace a message_end's message. */
  onAgentEvent(event: AgentEvent, signal: AbortSignal | undefined): Promise<void>;
  /** Whether the text invokes an extension command (those run at once, even while the agent works). */
  isCommand(text: string): boolean;
  /** Extension command or `input` event; undefined when the input was handled and nothing is to be sent. */
  routeInput(input: RoutedInput & { source: InputSource; streamingBehavior?: "steer" | "followUp" }): Promise<RoutedInput | undefined>;
  /** A run starts: from a prompt (RoutedInput), or from an extension's message (`sendMessage` with triggerTurn). */
  beforeAgentStart(start: RoutedInput | { message: AgentMessage }): Promise<{ systemPrompt?: string; messages: AgentMessage[] }>;
  userBash(command: string, excludeFromContext: boolean): Promise<UserBashResult | undefined>;
  beforeCompact(
    input: CompactionMoment & {
      preparation: Record<string, any> & { firstKeptEntryId: string; tokensBefore: number };
      branchEntries: SessionEntry[];
      customInstructions?: string;
      signal: AbortSignal;
    },
  ): Promise<SessionBeforeCompactResult | undefined>;
  compacted(entry: CompactionEntry, fromExtension: boolean, moment: CompactionMoment): Promise<void>;
  /** A compaction failed, was cancelled by an extension, or was aborted. */
  compactionFailed(failure: CompactionFailure): Promise<void>;
  /** agent_before_settle: true when extensions asked for one more model request (and may have it). */
  beforeSettle(outcome: AgentActivityOutcome): Promise<boolean>;
  /** agent_settled, before the session reports it; `aborted` when the run was stopped. */
  settled(aborted: boolean): Promise<void>;
  sessionInfoChanged(name: string | undefined): Promise<void>;
  modelSelected(model: Model, previousModel: Model | undefined, source: "set" | "cycle" | "restore"): Promise<void>;
  thinkingLevelSelected(level: ModelThinkingLevel, previousLevel: ModelThinkingLevel): Promise<void>;
  /** Asked before a new/switch; true cancels. */
  beforeSwitch(reason: "new" | "resume", targetSessionFile?: string): Promise<boolean>;
  /** Asked before fork/clone; true cancels. */
  beforeFork(entryId: string, position: "before" | "at"): Promise<boolean>;
  /** Just before the session file changes under the session (new, resume, fork): the old runtime shuts down. */
  sessionWillBeReplaced(reason: "new" | "resume" | "fork", targetSessionFile: string | undefined): Promise<void>;
  /** After the session file changed: extensions start again for the new session. */
  sessionReplaced(reason: "new" | "resume" | "fork", previousSessionFile: string | undefined): Promise<void>;
}
