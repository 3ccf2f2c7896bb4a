/**
 * What an extension gets from `@earendil-works/pi-agent-core` / `@mariozechner/pi-agent-core`
 * (as of pi 0.87): the `Agent` class and loop functions on xcsh's agent, the message
 * helpers, truncation and token accounting xcsh shares with its coding-agent API, and
 * pi's small result and error helpers. Loaded only when an extension imports the
 * package (XCSH_TRACE_LOAD=1 reports it).
 *
 * pi 0.87's agent harness — sessions in lanes, storage repos, operations, its
 * execution environment and cancellation contexts, telemetry spans — is a second
 * agent runtime that xcsh does not have; those names are served as functions that
 * throw "not supported by xcsh" when called, so that importing one still loads.
 */
import {
  BRANCH_SUMMARY_PREFIX,
  BRANCH_SUMMARY_SUFFIX,
  bashExecutionToText,
  COMPACTION_SUMMARY_PREFIX,
  COMPACTION_SUMMARY_SUFFIX,
  convertToLlm,
  createBranchSummaryMessage,
  createCompactionSummaryMessage,
  createCustomMessage,
} from "../../agent/messages.ts";
import { traceModuleLoad } from "../../ai/load-trace.ts";
import { splitArguments, substituteArguments } from "../../resources/template-args.ts";
import { ESCAPE_SEQUENCE } from "../../tools/inert-text.ts";
import { DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, formatSize, GREP_MAX_LINE_LENGTH, truncateHead, truncateLine, truncateTail } from "../../tools/truncate.ts";
import { notSupportedNames } from "../not-supported.ts";
import { AGENT_CORE_UNSUPPORTED, unsupportedNames } from "../unsupported-names.ts";
import { formatSkillInvocation, formatSkillsForPrompt } from "../resource-helpers.ts";
import { Agent } from "./agent.ts";
import { agentLoop, agentLoopContinue, runAgentLoop, runAgentLoopContinue, setDefaultStreamFn } from "./loop.ts";
import {
  BranchSummaryError,
  CompactionError,
  err,
  ExecutionError,
  FileError,
  getOrThrow,
  getOrUndefined,
  harnessErrorClasses,
  HarnessClosed,
  HarnessFault,
  matchError,
  ok,
  ResultNamespace,
  TaggedError,
  toError,
} from "./results.ts";

traceModuleLoad("extensions/agent-core");

/**
 * Control characters but tab, newline and carriage return: pi-agent-core's sanitizeBinaryOutput
 * keeps `\r` (and drops U+FFFD, a byte that did not decode), so it is not inertText — only the
 * escape-sequence pattern is shared.
 */
const CONTROL_CHARACTERS = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;

function sanitizeBinaryOutput(text: string): string {
  return String(text).replace(ESCAPE_SEQUENCE, "").replace(CONTROL_CHARACTERS, "").replace(/\uFFFD/g, "");
}

function formatPromptTemplateInvocation(template: { content: string }, args: string[] = []): string {
  return substituteArguments(String(template?.content ?? ""), args);
}

/** Names xcsh's coding-agent API serves that pi-agent-core exports too (token accounting). */
const SHARED_WITH_CODING_AGENT = [
  "calculateContextTokens",
  "DEFAULT_COMPACTION_SETTINGS",
  "estimateTokens",
  "findCutPoint",
  "findTurnStartIndex",
  "getLastAssistantUsage",
  "serializeConversation",
  "shouldCompact",
  "estimateContextTokens",
];

let shared: Record<string, unknown> | undefined;

/** The export object of `moduleName`; both spellings share one implementation (one `Agent` class). */
export function createAgentCoreModule(moduleName: string, codingAgent: Record<string, unknown>): Record<string, unknown> {
  shared ??= {
    Agent,
    agentLoop,
    agentLoopContinue,
    runAgentLoop,
    runAgentLoopContinue,
    setDefaultStreamFn,
    uuidv7: () => Bun.randomUUIDv7(),
    convertToLlm,
    bashExecutionToText,
    createBranchSummaryMessage: (summary: string, fromId: string | null, timestamp: string | number) =>
      createBranchSummaryMessage(summary, fromId as string, timestamp as string),
    createCompactionSummaryMessage: (summary: string, tokensBefore: number, timestamp: string | number) =>
      createCompactionSummaryMessage(summary, tokensBefore, timestamp as string),
    createCustomMessage: (customType: string, content: Parameters<typeof createCustomMessage>[1], display: boolean, details: unknown, timestamp: string | number) =>
      createCustomMessage(customType, content, display, details, timestamp as string),
    BRANCH_SUMMARY_PREFIX,
    BRANCH_SUMMARY_SUFFIX,
    COMPACTION_SUMMARY_PREFIX,
    COMPACTION_SUMMARY_SUFFIX,
    truncateHead,
    truncateTail,
    truncateLine,
    formatSize,
    utf8ByteLength: (content: string) => Buffer.byteLength(String(content), "utf8"),
    sanitizeBinaryOutput,
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_LINES,
    GREP_MAX_LINE_LENGTH,
    parseCommandArgs: (argsString: string) => splitArguments(String(argsString ?? "")),
    substituteArgs: (content: string, args: string[]) => substituteArguments(String(content), Array.isArray(args) ? args : []),
    formatPromptTemplateInvocation,
    formatSkillInvocation,
    formatSkillsForSystemPrompt: formatSkillsForPrompt,
    Result: ResultNamespace,
    ok,
    err,
    getOrThrow,
    getOrUndefined,
    toError,
    TaggedError,
    matchError,
    ...harnessErrorClasses(),
    HarnessFault,
    HarnessClosed,
    FileError,
    ExecutionError,
    CompactionError,
    BranchSummaryError,
    // Spans an extension starts for itself go nowhere: xcsh records no telemetry.
    NOOP_TELEMETRY_CONTEXT: NOOP_SPAN,
    defineTelemetrySchema: <T>(schema: T): T => schema,
  };
  const fromCodingAgent = Object.fromEntries(SHARED_WITH_CODING_AGENT.filter((name) => name in codingAgent).map((name) => [name, codingAgent[name]]));
  const unsupported = notSupportedNames(moduleName, unsupportedNames(AGENT_CORE_UNSUPPORTED));
  return { ...unsupported, ...fromCodingAgent, ...shared };
}

const NOOP_SPAN: Record<string, unknown> = Object.freeze({
  startSpan: (_options: unknown, callback: (span: unknown) => unknown) => Promise.resolve().then(() => callback(NOOP_SPAN)),
  addEvent: () => {},
  setAttributes: () => {},
  setStatus: () => {},
});
