/**
 * `/mcp` where there is no terminal to draw in (RPC, ACP, print): the same answers as
 * the terminal's command, as text and rows a mode hands on — `/mcp` lists every
 * server's state, counts and last error; `/mcp reconnect <name>` reads the config again
 * and connects that server afresh. Signing in needs a browser and a person, so
 * `/mcp login` says to run `xcsh mcp login <name>`. Never throws: a failure is the answer.
 */
import type { McpSessionLink } from "./start.ts";
import { renderServerStatus, type McpServerStatus } from "./status.ts";
import { within } from "./wait.ts";

export interface McpCommandAnswer {
  text: string;
  isError: boolean;
  servers: McpServerStatus[];
}

/** Servers still connecting get this long before the list is given (a hung one shows as connecting). */
const SETTLE_MS = 3_000;

/** Whether the input is `/mcp` or `/mcp …`. */
export function isMcpCommand(text: string): boolean {
  return /^\/mcp(?:\s|$)/.test(text.trimStart());
}

export async function answerMcpCommand(mcp: McpSessionLink | undefined, input: string): Promise<McpCommandAnswer> {
  const [action, name, ...extra] = input.trim().replace(/^\/mcp/, "").trim().split(/\s+/).filter(Boolean);
  const failure = (text: string): McpCommandAnswer => ({ text, isError: true, servers: [] });
  if (action === undefined) {
    if (mcp) await within(mcp.readyAll(), SETTLE_MS);
    const servers = mcp?.status() ?? [];
    return { text: renderServerStatus(servers), isError: false, servers };
  }
  if (action === "login" && name !== undefined && extra.length === 0) {
    return failure(`Signing in needs a browser: run \`xcsh mcp login ${name}\` in a terminal, then /mcp reconnect ${name}.`);
  }
  if (action !== "reconnect" || name === undefined || extra.length > 0) return failure("Usage: /mcp, /mcp reconnect <name>, /mcp login <name>");
  if (!mcp) return failure(`No MCP server "${name}": this session has no MCP servers (was it started with --no-mcp?)`);
  try {
    const status = await mcp.reconnect(name);
    return { text: renderServerStatus([status]), isError: status.state !== "connected", servers: [status] };
  } catch (error) {
    return failure((error as Error).message);
  }
}
