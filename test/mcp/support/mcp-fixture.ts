/**
 * What the MCP tests share: a private home with the fake model (test/support/cli.ts),
 * helpers that declare the test server (test-server.ts, run with this Bun) in an
 * mcp.json, and the server's event log, through which a test sees a server start,
 * see a cancellation, or never run.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { isAlive } from "../../support/process.ts";

export const TEST_SERVER = join(import.meta.dir, "test-server.ts");
export { PNG_BASE64 } from "./test-server.ts";

/**
 * A stdio entry that runs the test server, logging to `events`. Its tools are `direct`
 * (declared to the model, as most tests want to see them); pi's default, `codemode`, is
 * what an entry without `exposure` gets (test/mcp/exposure.test.ts).
 */
export function stdioServer(events: string, env: Record<string, string> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [TEST_SERVER], env: { MCP_EVENTS: events, ...env }, exposure: "direct" };
}

export function writeMcpJson(file: string, servers: Record<string, unknown>): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ mcpServers: servers }, null, 2));
}

export function readEvents(file: string): string[] {
  return existsSync(file) ? readFileSync(file, "utf8").trim().split("\n").filter(Boolean) : [];
}

/** Pids of the servers that logged `start <pid>`. */
export function startedPids(file: string): number[] {
  return readEvents(file)
    .filter((line) => line.startsWith("start "))
    .map((line) => Number(line.split(" ")[1]));
}

export async function waitUntil(condition: () => boolean, withinMs: number, what: string): Promise<void> {
  const until = Date.now() + withinMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error(`Timed out after ${withinMs} ms waiting for ${what}`);
    await Bun.sleep(25);
  }
}

export async function allGone(pids: number[], withinMs: number): Promise<boolean> {
  const until = Date.now() + withinMs;
  while (Date.now() < until) {
    if (pids.every((pid) => !isAlive(pid))) return true;
    await Bun.sleep(50);
  }
  return pids.every((pid) => !isAlive(pid));
}

/** The text of everything a request sent (messages and tools), for "did it reach the model" checks. */
export function bodyText(request: { body: unknown }): string {
  return JSON.stringify(request.body);
}

/** Tool names a request offered the model (OpenAI Chat Completions shape). */
export function offeredTools(request: { body: any }): string[] {
  return (request.body.tools ?? []).map((tool: any) => tool.function?.name ?? tool.name);
}
