/**
 * The extensions the start-up bench loads, written in pi's style so the same
 * files run unchanged in xcsh and in the reference agent: each imports the host
 * API (`@mariozechner/pi-coding-agent`, values as well as types, so the import
 * is real after transpiling) and `typebox`, registers a tool and a command, and
 * handles `session_start` and `tool_call`. With `tui`, the extension also draws
 * its tool call with `@mariozechner/pi-tui`, as extensions with custom rendering do.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export const EXTENSION_COUNT = 10;

/** The command extension `index` registers (get_commands lists it; the bench checks they all loaded). */
export const benchCommandName = (index: number) => `bench-${index}`;

export function benchExtensionSource(index: number, tui: boolean): string {
  const tool = JSON.stringify(`bench_words_${index}`);
  const command = JSON.stringify(benchCommandName(index));
  return `/** Bench extension ${index}: counts words, remembers how often it ran, guards bash. */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { DEFAULT_MAX_BYTES, formatSize, isToolCallEventType, truncateHead } from "@mariozechner/pi-coding-agent";
import { Type } from "typebox";
${tui ? 'import { Text, truncateToWidth } from "@mariozechner/pi-tui";\n' : ""}
const TOOL = ${tool};
const BLOCKED = ["rm -rf /", "mkfs", ":(){ :|:& };:"];

export default function (pi: ExtensionAPI) {
  let calls = 0;
  let sessionStartedAt = 0;

  pi.registerTool({
    name: TOOL,
    label: "Word count ${index}",
    description: "Count the words of a text and show its first lines.",
    promptSnippet: "Count the words of a text",
    parameters: Type.Object({
      text: Type.String({ description: "The text to count" }),
      lines: Type.Optional(Type.Integer({ minimum: 1, maximum: 50, description: "How many lines to show (default 5)" })),
    }),
    async execute(_toolCallId, params) {
      calls++;
      const words = params.text.split(/\\s+/).filter(Boolean).length;
      const head = truncateHead(params.text, { maxLines: params.lines ?? 5, maxBytes: DEFAULT_MAX_BYTES });
      const summary = words + " words, " + formatSize(params.text.length);
      return { content: [{ type: "text", text: summary + "\\n" + head.content }], details: { words, calls } };
    },${
      tui
        ? `
    renderCall(args, theme) {
      return new Text(theme.fg("toolTitle", "words ") + truncateToWidth(String(args.text ?? ""), 60), 0, 0);
    },`
        : ""
    }
  });

  pi.registerCommand(${command}, {
    description: "How often word count ${index} ran in this session",
    handler: async (_args, ctx) => {
      const minutes = sessionStartedAt ? Math.round((Date.now() - sessionStartedAt) / 60000) : 0;
      ctx.ui.notify(TOOL + " ran " + calls + " times in " + minutes + " min", "info");
    },
  });

  pi.on("session_start", async () => {
    sessionStartedAt = Date.now();
    calls = 0;
  });

  pi.on("tool_call", async (event) => {
    if (isToolCallEventType("bash", event) && BLOCKED.some((pattern) => event.input.command.includes(pattern))) {
      return { block: true, reason: "blocked by word count ${index}" };
    }
  });
}
`;
}

/** Writes EXTENSION_COUNT extensions into `<configDir>/extensions/`; with `tuiIndex`, that one imports pi-tui. */
export function writeBenchExtensions(configDir: string, tuiIndex?: number): void {
  const folder = join(configDir, "extensions");
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  for (let index = 1; index <= EXTENSION_COUNT; index++) {
    writeFileSync(join(folder, `word-count-${index}.ts`), benchExtensionSource(index, index === tuiIndex));
  }
}
