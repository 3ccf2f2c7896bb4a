/**
 * `xcsh mcp list`'s check (pi 1.6.0): connect to each server a run would start, list its
 * tools, and close again — so a server that is down, misconfigured or waiting for a
 * sign-in shows up before a session needs it. Each server gets its `startupTimeout`
 * (default 10 s) to connect; all are tried at once. Loaded only by that command.
 */
import { McpConnection } from "./connection.ts";
import type { McpServerSpec } from "./config-schema.ts";
import { CLIENT_INFO } from "./hub.ts";

export interface ProbeResult {
  name: string;
  state: "connected" | "failed" | "needs-auth";
  tools: string[];
  error?: string;
}

async function probe(spec: McpServerSpec): Promise<ProbeResult> {
  let failure: string | undefined;
  const connection = new McpConnection(spec, { changed: () => {}, failed: (message) => (failure ??= message) }, CLIENT_INFO);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<"timeout">((resolve) => (timer = setTimeout(() => resolve("timeout"), spec.startupWaitMs)));
  try {
    const outcome = await Promise.race([connection.settled.then(() => "settled" as const), timedOut]);
    if (outcome === "timeout") return { name: spec.name, state: "failed", tools: [], error: `did not connect within ${spec.startupWaitMs / 1000}s (its startupTimeout)` };
    if (connection.state === "connected") return { name: spec.name, state: "connected", tools: connection.tools.map((tool) => tool.name) };
    if (connection.state === "needs-auth") return { name: spec.name, state: "needs-auth", tools: [], error: `needs a sign-in: run xcsh mcp login ${spec.name}` };
    return { name: spec.name, state: "failed", tools: [], error: connection.lastError ?? failure ?? "could not connect" };
  } finally {
    clearTimeout(timer);
    await connection.close();
  }
}

/** Every server checked at once; results in the order given. */
export function probeServers(specs: readonly McpServerSpec[]): Promise<ProbeResult[]> {
  return Promise.all(specs.map(probe));
}
