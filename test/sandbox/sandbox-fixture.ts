/**
 * A test home for sandboxed runs. It must live outside /tmp, which sandboxed commands may
 * write (a command could otherwise change the test's own files), and xcsh's temp folder —
 * writable inside the sandbox — is a folder in that home, beside the project.
 */
import { existsSync, mkdirSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, type ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";

export function createSandboxFixture(prefix: string): { base: string; fixture: ExtensionFixture } {
  const base = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), prefix));
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = base;
  let fixture: ExtensionFixture;
  try {
    fixture = createExtensionFixture();
  } finally {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
  }
  fixture.home.env.TMPDIR = join(fixture.home.home, "tmp");
  mkdirSync(fixture.home.env.TMPDIR, { recursive: true });
  return { base, fixture };
}

/** Whether bubblewrap can start a sandbox here (installed, and allowed to create namespaces). */
export function bwrapWorks(): boolean {
  const bwrap = Bun.which("bwrap");
  if (!bwrap || process.platform !== "linux") return false;
  return Bun.spawnSync([bwrap, "--die-with-parent", "--unshare-pid", "--unshare-net", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "true"]).exitCode === 0;
}

export interface ToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** The model makes these tool calls one after another; returns each tool result as the fake server received it. */
export async function toolResults(fixture: ExtensionFixture, rpc: RpcProcess, calls: ToolCall[]): Promise<Array<{ text: string; isError: boolean }>> {
  fixture.server.enqueue(...calls.map((call) => ({ content: [{ type: "toolCall" as const, ...call }] })), { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  const response = await rpc.request({ type: "prompt", message: "go" });
  if (!response.success) throw new Error(`prompt refused: ${JSON.stringify(response)}`);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
  const ends = rpc.ofType("tool_execution_end", from);
  const messages = fixture.server.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === "tool");
  return messages.slice(-calls.length).map((message: { content: unknown }, index: number) => ({ text: textOf(message), isError: ends[index]?.isError === true }));
}

export const bashCall = (command: string): ToolCall => ({ name: "bash", arguments: { command } });
