/**
 * Session files far larger than a small model window, written straight to
 * disk (a turn-by-turn conversation through the fake server would take
 * minutes): each turn asks about a file, reads it, and answers.
 */
import { writeFileSync } from "node:fs";

/** A file's content of about 9 KB, different for each turn. */
export const fileContent = (turn: number) => `// file-${turn}.ts\n${`export const value${turn} = ${turn};\n`.repeat(300)}`;

/**
 * JSON.stringify takes seconds over a 20 MB string on a busy machine: such a
 * string goes into the line as a placeholder, replaced by its escaped text.
 */
const bigStrings = new Map<string, string>();
function bigString(value: string): string {
  if (value.length < 1_000_000 || /[\u0000-\u0009\u000b-\u001f"\\]/.test(value)) return value;
  const placeholder = `@@big-string-${bigStrings.size}@@`;
  bigStrings.set(placeholder, value.replaceAll("\n", "\\n"));
  return placeholder;
}
function spliceBigStrings(text: string): string {
  let out = text;
  for (const [placeholder, escaped] of bigStrings) out = out.replace(placeholder, () => escaped);
  bigStrings.clear();
  return out;
}

/** A session file of `turns` turns, each reading a file whose content is `toolOutput(i)`. */
export function writeSession(dir: string, name: string, turns: number, toolOutput: (turn: number) => string): string {
  const file = `${dir}/${name}.jsonl`;
  const lines: unknown[] = [{ type: "session", version: 3, id: crypto.randomUUID(), timestamp: new Date().toISOString(), cwd: dir }];
  let parentId: string | null = null;
  let next = 0;
  const add = (message: Record<string, unknown>) => {
    const id = (++next).toString(16).padStart(8, "0");
    lines.push({ type: "message", id, parentId, timestamp: new Date().toISOString(), message: { timestamp: Date.now(), ...message } });
    parentId = id;
  };
  const assistant = (content: unknown[], stopReason: string) => ({
    role: "assistant",
    content,
    api: "openai-completions",
    provider: "fake",
    model: "fake-model",
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
    stopReason,
  });
  for (let i = 1; i <= turns; i++) {
    add({ role: "user", content: `question ${i}: what is in file-${i}.ts?` });
    add(assistant([{ type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `file-${i}.ts` } }], "toolUse"));
    add({ role: "toolResult", toolCallId: `call_${i}`, toolName: "read", content: [{ type: "text", text: toolOutput(i) }], isError: false });
    add(assistant([{ type: "text", text: `answer ${i}: file-${i}.ts holds ${"details ".repeat(40)}` }], "stop"));
  }
  const out = lines.map((line) => JSON.stringify(line, (_key, value) => (typeof value === "string" ? bigString(value) : value))).join("\n");
  writeFileSync(file, spliceBigStrings(out) + "\n");
  return file;
}

