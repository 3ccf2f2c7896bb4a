/**
 * A session file in the spec's format with every part an export shows: model
 * and thinking-level changes, read / edit / bash tool calls (one failing), a
 * user `!` command, markdown with code, an image, a label, two branches (the
 * older one left through a branch summary) and a compaction on the active one.
 * Message text carries HTML that must never run: `<script>`, `</html>`, `</script>`.
 */
import { writeFileSync } from "node:fs";

export const SESSION_ID = "0190b7c2-1d2e-7f00-8abc-0123456789ab";
export const XSS = "<script>alert(1)</script>";
/** A 1×1 red PNG. */
export const PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

const usage = (input: number, output: number, total: number) => ({
  input,
  output,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: input + output,
  cost: { input: total / 2, output: total / 2, cacheRead: 0, cacheWrite: 0, total },
});

const assistant = (content: unknown[], stopReason = "stop", cost = 0.01) => ({
  role: "assistant",
  content,
  api: "anthropic-messages",
  provider: "anthropic",
  model: "claude-sonnet-4-5",
  usage: usage(1000, 200, cost),
  stopReason,
  timestamp: 1_767_000_000_000,
});

export interface SessionFixture {
  /** Ids of notable entries. */
  ids: Record<string, string>;
  /** Entry ids of the active branch, root first. */
  activePath: string[];
}

/** Writes the session to `file`. */
export function writeSessionFixture(file: string, cwd = "/home/dev/project"): SessionFixture {
  const lines: unknown[] = [{ type: "session", version: 3, id: SESSION_ID, timestamp: "2026-01-01T10:00:00.000Z", cwd }];
  const ids: Record<string, string> = {};
  let counter = 0;
  const add = (name: string, parentId: string | null, fields: Record<string, unknown>): string => {
    const id = (0xa0000000 + ++counter).toString(16);
    lines.push({ ...fields, id, parentId, timestamp: new Date(Date.UTC(2026, 0, 1, 10, 0, counter)).toISOString() });
    ids[name] = id;
    return id;
  };
  const message = (name: string, parentId: string | null, body: Record<string, unknown>) =>
    add(name, parentId, { type: "message", message: { timestamp: 1_767_000_000_000 + counter * 1000, ...body } });

  add("model", null, { type: "model_change", provider: "anthropic", modelId: "claude-sonnet-4-5" });
  add("thinking", ids.model, { type: "thinking_level_change", thinkingLevel: "high" });
  message("ask", ids.thinking, { role: "user", content: `Fix the greeting in src/app.ts. It prints ${XSS} and </html> raw.` });
  message("readCall", ids.ask, assistant([
    { type: "thinking", thinking: "SECRET-THOUGHT: first read the file." },
    { type: "text", text: "Let me read it." },
    { type: "toolCall", id: "call_read", name: "read", arguments: { path: "src/app.ts" } },
  ], "toolUse"));
  message("readResult", ids.readCall, {
    role: "toolResult", toolCallId: "call_read", toolName: "read", isError: false,
    content: [{ type: "text", text: 'export const greet = () => "<b>hi</b>";\n' }],
  });
  message("editCall", ids.readResult, assistant([
    { type: "toolCall", id: "call_edit", name: "edit", arguments: { path: "src/app.ts", edits: [{ oldText: '"<b>hi</b>"', newText: '"hello"' }] } },
  ], "toolUse"));
  message("editResult", ids.editCall, {
    role: "toolResult", toolCallId: "call_edit", toolName: "edit", isError: false,
    content: [{ type: "text", text: "Successfully replaced 1 block(s) in src/app.ts." }],
    details: { diff: '-1 export const greet = () => "<b>hi</b>";\n+1 export const greet = () => "hello";', firstChangedLine: 1 },
  });
  message("bashCall", ids.editResult, assistant([
    { type: "toolCall", id: "call_bash", name: "bash", arguments: { command: "bun test && echo '</script>'" } },
  ], "toolUse"));
  message("bashResult", ids.bashCall, {
    role: "toolResult", toolCallId: "call_bash", toolName: "bash", isError: true,
    content: [{ type: "text", text: `${Array.from({ length: 60 }, (_, i) => `test line ${i}`).join("\n")}\n1 fail\n\nCommand exited with code 1` }],
  });
  message("answer", ids.bashResult, assistant([
    { type: "text", text: "## Fixed\n\nThe greeting is now **plain text**. See `src/app.ts`:\n\n```ts\nexport const greet = () => \"hello\"; // done\n```\n\n- one test still fails\n- [docs](https://example.com/docs)\n\nHTML stays text: <img src=x onerror=alert(2)>" },
  ]));
  add("label", ids.answer, { type: "label", targetId: ids.answer, label: "checkpoint-1" });

  // The first branch: left behind.
  message("oldAsk", ids.label, { role: "user", content: "OLD-BRANCH: try approach A" });
  message("oldAnswer", ids.oldAsk, assistant([{ type: "text", text: "Approach A applied." }]));

  // Back to the answer with a summary of approach A; the active branch goes on from there.
  add("branchSummary", ids.label, { type: "branch_summary", fromId: ids.oldAnswer, summary: "BRANCH-SUMMARY: approach A was tried and dropped." });
  message("shell", ids.branchSummary, { role: "bashExecution", command: "ls -la", output: "total 0\napp.ts", exitCode: 0, cancelled: false, truncated: false });
  add("compaction", ids.shell, { type: "compaction", summary: "COMPACTION-SUMMARY: the greeting was fixed.", firstKeptEntryId: ids.answer, tokensBefore: 12345 });
  message("imageAsk", ids.compaction, { role: "user", content: [{ type: "text", text: "What colour is this pixel?" }, { type: "image", data: PIXEL_PNG, mimeType: "image/png" }] });
  add("switchModel", ids.imageAsk, { type: "model_change", provider: "openai", modelId: "gpt-5" });
  add("switchThinking", ids.switchModel, { type: "thinking_level_change", thinkingLevel: "low" });
  message("imageAnswer", ids.switchThinking, { ...assistant([{ type: "text", text: "ACTIVE-END: the pixel is red." }], "stop", 0.02), provider: "openai", model: "gpt-5", api: "openai-responses" });

  writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  const activeNames = ["model", "thinking", "ask", "readCall", "readResult", "editCall", "editResult", "bashCall", "bashResult", "answer", "label", "branchSummary", "shell", "compaction", "imageAsk", "switchModel", "switchThinking", "imageAnswer"];
  return { ids, activePath: activeNames.map((name) => ids[name]) };
}
