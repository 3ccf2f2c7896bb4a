/**
 * The built-in tools routed through the ACP client when it offers to do the work:
 * `fs/read_text_file` and `fs/write_text_file` for read, edit and write (so the
 * editor's unsaved buffers are what the agent reads, and edits land in them), and
 * `terminal/*` for bash (the command runs in the editor's terminal, embedded in
 * the tool call). Whatever the client does not offer stays local. Images are read
 * from disk either way: a text-file method cannot carry them.
 *
 * Under xcsh's sandbox the editor's help must not open a way around it: writes through
 * the client are held to the sandbox's writable folders first (the editor writes to this
 * machine's disk), and bash runs here, sandboxed, not in the editor's terminal.
 */
import { mkdir } from "node:fs/promises";
import { extname } from "node:path";
import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { AgentToolResult } from "../../agent/types.ts";
import type { BashOperations } from "../../tools/bash-operations.ts";
import { detectShell } from "../../tools/bash-operations.ts";
import { createBashTool } from "../../tools/bash.ts";
import { createEditTool, type EditOperations } from "../../tools/edit.ts";
import { detectImageMimeTypeFromFile } from "../../tools/image-mime.ts";
import { createReadTool, type ReadOperations } from "../../tools/read.ts";
import type { CodingTool } from "../../tools/types.ts";
import { writeFileChecked } from "../../tools/unshared-write.ts";
import { createWriteTool, type WriteOperations } from "../../tools/write.ts";
import { commandPolicy } from "../../sandbox/active-policy.ts";
import { assertMayWrite } from "../../sandbox/write-guard.ts";

const IMAGE_EXTENSIONS = new Set([".png", ".jpg", ".jpeg", ".gif", ".webp"]);
/** The most output a client terminal keeps for a command; the bash tool truncates further for the model. */
const TERMINAL_OUTPUT_LIMIT = 1024 * 1024;

export interface ClientToolContext {
  client: AgentContext;
  sessionId: string;
  cwd: string;
  capabilities: ClientCapabilities | undefined;
  /** Sends a tool_call_update (the terminal embedded in a bash call). */
  embedTerminal(toolCallId: string, terminalId: string): void;
}

const isImage = (path: string) => IMAGE_EXTENSIONS.has(extname(path).toLowerCase());

/** Reads through the client (its buffers); images from disk. */
export function clientFileReader(context: ClientToolContext): (path: string) => Promise<string> {
  return async (path) => {
    const { content } = await context.client.request("fs/read_text_file", { sessionId: context.sessionId, path });
    return content;
  };
}

function readOperations(context: ClientToolContext): ReadOperations {
  const readText = clientFileReader(context);
  return {
    readFile: async (path) => (isImage(path) ? Buffer.from(await Bun.file(path).arrayBuffer()) : Buffer.from(await readText(path), "utf8")),
    // The client answers for its own buffers, which may not exist on disk yet: reading is the check.
    access: async () => {},
    detectImageMimeType: async (path) => (isImage(path) ? detectImageMimeTypeFromFile(path) : null),
  };
}

function writeText(context: ClientToolContext): (path: string, content: string) => Promise<void> {
  return async (path, content) => {
    assertMayWrite(path, context.cwd);
    await context.client.request("fs/write_text_file", { sessionId: context.sessionId, path, content });
  };
}

function writeLocally(context: ClientToolContext): (path: string, content: string) => Promise<void> {
  // As the edit tool writes locally: judged at the write, through the folder held open.
  return (path, content) => writeFileChecked(path, content, context.cwd, false);
}

function editOperations(context: ClientToolContext, canRead: boolean, canWrite: boolean): EditOperations {
  const readText = clientFileReader(context);
  return {
    readFile: async (path) => (canRead ? Buffer.from(await readText(path), "utf8") : Buffer.from(await Bun.file(path).arrayBuffer())),
    writeFile: canWrite ? writeText(context) : writeLocally(context),
    access: async () => {},
  };
}

function writeOperations(context: ClientToolContext): WriteOperations {
  return {
    writeFile: writeText(context),
    // The editor writes the file; the folder must exist for it on the same machine.
    mkdir: async (dir) => {
      assertMayWrite(dir, context.cwd);
      await mkdir(dir, { recursive: true });
    },
  };
}

/**
 * bash through the client's terminal: created for the call, embedded in the tool
 * call at once, killed on abort or timeout, its output handed to the bash tool
 * (which truncates it for the model) once the command has exited, then released.
 */
function terminalOperations(context: ClientToolContext, toolCallId: string): BashOperations {
  return {
    async exec(command, cwd, { onData, signal, timeout }) {
      if (signal?.aborted) return { exitCode: null };
      const terminal = await context.client.createTerminal({
        sessionId: context.sessionId,
        command: detectShell(),
        args: ["-c", command],
        cwd,
        outputByteLimit: TERMINAL_OUTPUT_LIMIT,
      });
      context.embedTerminal(toolCallId, terminal.id);
      let killed = false;
      const kill = () => {
        if (killed) return;
        killed = true;
        terminal.kill().catch(() => {});
      };
      signal?.addEventListener("abort", kill, { once: true });
      const timer = timeout !== undefined && timeout > 0 ? setTimeout(kill, timeout * 1000) : undefined;
      try {
        const exit = await terminal.waitForExit();
        const { output } = await terminal.currentOutput();
        if (output) onData(Buffer.from(output, "utf8"));
        return { exitCode: killed || exit.exitCode === undefined ? null : exit.exitCode };
      } finally {
        if (timer) clearTimeout(timer);
        signal?.removeEventListener("abort", kill);
        terminal.release().catch(() => {});
      }
    },
  };
}

/** A bash tool whose every call gets terminal operations bound to its tool call id. */
function terminalBashTool(context: ClientToolContext): CodingTool<any> {
  const template = createBashTool(context.cwd);
  return {
    ...template,
    execute: (toolCallId, params, signal, onUpdate): Promise<AgentToolResult<any>> => {
      // Asked at each call: the sandbox may have been made stricter since (the "sandbox" config option).
      const sandboxed = commandPolicy().sandbox.mode !== "off";
      const tool = sandboxed ? template : createBashTool(context.cwd, { operations: terminalOperations(context, toolCallId) });
      return tool.execute(toolCallId, params, signal, onUpdate);
    },
  };
}

/** The built-ins to swap in for what the client offers; empty when it offers nothing. */
export function clientBackedTools(context: ClientToolContext): CodingTool<any>[] {
  const fs = context.capabilities?.fs;
  const canRead = fs?.readTextFile === true;
  const canWrite = fs?.writeTextFile === true;
  const tools: CodingTool<any>[] = [];
  if (canRead) tools.push(createReadTool(context.cwd, { operations: readOperations(context) }));
  if (canRead || canWrite) tools.push(createEditTool(context.cwd, { operations: editOperations(context, canRead, canWrite) }));
  if (canWrite) tools.push(createWriteTool(context.cwd, { operations: writeOperations(context) }));
  if (context.capabilities?.terminal === true) tools.push(terminalBashTool(context));
  return tools;
}
