/**
 * The interactive session for a terminal that cannot move its cursor
 * (TERM=dumb: Emacs shell buffers, some CI consoles): a line-by-line loop with
 * no escape sequences at all. Each line typed is a prompt (`/quit` or EOF
 * ends), the answer is printed as it streams, tool calls as one line each.
 * Ctrl+C aborts a run in progress, or exits when idle. Dialogs resolve to
 * their defaults, as in print mode.
 */
import { verboseErrorBody } from "../../ai/verbose-error-body.ts";
import type { RunOptions } from "../../core/run-options.ts";
import { headlessExtensionOptions } from "../headless-extensions.ts";
import { createSessionFromArgs, noteTrustWithoutAsking } from "../session-from-args.ts";
import { initialPrompts, readFileArguments } from "../initial-prompts.ts";
import type { ImageContent } from "../../ai/types.ts";
import { pickSessionOnTerminal, terminalLines } from "../print/pick-session.ts";
import { resolve } from "node:path";

function toolLine(name: string, args: Record<string, unknown>): string {
  if (name === "bash") return `$ ${String(args.command ?? "")}`;
  const path = typeof args.path === "string" ? args.path : "";
  return path ? `${name} ${path}` : `${name} ${JSON.stringify(args)}`;
}

export async function runPlainMode(args: RunOptions, hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  const out = (text: string) => process.stdout.write(text);
  // -r: picked from a numbered list (there is no picker UI here); cancelled, a new session starts.
  const input = terminalLines();
  if (args.resume) await noteTrustWithoutAsking(args.trustProject, process.cwd());
  const picked = args.resume ? await pickSessionOnTerminal(process.cwd(), args.sessionDir === undefined ? undefined : resolve(args.sessionDir), input) : undefined;
  if (picked?.kind === "cancelled") out(`--resume: ${picked.reason}; starting a new session.\n`);
  const sessions = picked?.kind === "picked" ? { sessions: { session: picked.path, sessionDir: args.sessionDir, name: args.name } } : {};
  const { session, extensions, args: parsed } = await createSessionFromArgs(args, { requireApiKey: false, extensions: headlessExtensionOptions("print", hostApi), ...sessions });
  out(`xcsh — ${session.model.provider}/${session.model.id} — ${process.cwd()}\nType a prompt and press Enter; /quit or Ctrl+D to exit.\n`);
  let atLineStart = true;
  session.subscribe((event) => {
    if (event.type === "message_update" && event.assistantMessageEvent.type === "text_delta") {
      out(event.assistantMessageEvent.delta);
      atLineStart = event.assistantMessageEvent.delta.endsWith("\n");
    } else if (event.type === "tool_execution_start") {
      out(`${atLineStart ? "" : "\n"}· ${toolLine(event.toolName, event.args ?? {})}\n`);
      atLineStart = true;
    } else if (event.type === "message_end" && event.message.role === "assistant") {
      const message = event.message;
      if (message.stopReason === "error") {
        out(`${atLineStart ? "" : "\n"}error: ${message.errorMessage ?? "the model returned an error"}\n`);
        if (args.verbose && message.errorBody) out(`response body: ${verboseErrorBody(message.errorBody)}\n`);
      } else if (message.stopReason === "aborted") out(`${atLineStart ? "" : "\n"}(aborted)\n`);
      else if (!atLineStart) out("\n");
      atLineStart = true;
    }
  });
  process.on("SIGINT", () => {
    if (session.isStreaming) void session.abort();
    else process.exit(130);
  });
  const ask = async (text: string, images: ImageContent[] = []) => {
    try {
      await session.prompt(text, { source: "interactive", ...(images.length > 0 ? { images } : {}) });
    } catch (error) {
      out(`error: ${(error as Error).message}\n`);
    }
  };
  for (const prompt of initialPrompts(parsed.messages, readFileArguments(parsed.fileArgs, session.cwd, session.settings as unknown as Record<string, unknown>))) await ask(prompt.text, prompt.images);
  out("> ");
  for (let line = await input.next(); line !== undefined; line = await input.next()) {
    const text = line.trim();
    if (text === "/quit" || text === "/exit") break;
    if (text) await ask(text);
    out("> ");
  }
  await input.close();
  await extensions?.shutdown();
  // A server still connecting must not keep the process waiting on its handshake.
  await session.mcp?.close();
  return 0;
}
