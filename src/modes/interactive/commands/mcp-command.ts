/**
 * /mcp: the session's MCP servers — each one's state (connecting, connected, failed,
 * needs-auth, disabled, waiting-for-trust), its tool, prompt and resource counts and
 * its last error. `/mcp reconnect <name>` reads the config again and connects that one
 * server afresh (after fixing its entry); `/mcp login <name>` signs in to a remote
 * server that wants OAuth (the same flow as `xcsh mcp login`: the address is shown,
 * the browser comes back to a local callback) and then reconnects it. The rows come
 * from the session's MCP link (src/mcp/start.ts); this only prints them.
 */
import type { McpSessionLink } from "../../../mcp/start.ts";
import { renderServerStatus } from "../../../mcp/status.ts";
import { within } from "../../../mcp/wait.ts";
import type { App, BuiltinCommand } from "../app.ts";

/** Servers still connecting get this long to finish before the list is shown (a hung one shows as connecting). */
const SETTLE_MS = 3_000;
const USAGE = "✗ Usage: /mcp, /mcp reconnect <name>, /mcp login <name>";

async function reconnect(app: App, mcp: McpSessionLink | undefined, name: string): Promise<void> {
  if (!mcp) {
    app.say(`✗ No MCP server "${name}": this session has no MCP servers (was it started with --no-mcp?)`, "", "error");
    return;
  }
  app.say(`Reconnecting MCP server "${name}" …`, "", "dim");
  const status = await mcp.reconnect(name);
  app.conversation.notice("MCP servers", `\n${renderServerStatus([status])}`, status.state === "connected" ? "accent" : "error");
}

async function login(app: App, mcp: McpSessionLink | undefined, name: string): Promise<void> {
  const { loginMcpServer } = await import("../../../mcp/login.ts");
  const say = (text: string) => app.say(text.trimEnd(), "", "dim");
  await loginMcpServer(name, app.cwd, { out: say, err: say });
  if (mcp) await reconnect(app, mcp, name);
}

export const mcpCommand: BuiltinCommand = {
  name: "mcp",
  description: "MCP servers: state, tools, last error; /mcp reconnect|login <name>",
  argumentHint: "[reconnect|login <name>]",
  async run(app, args) {
    const mcp = app.session?.mcp;
    const [action, name, ...extra] = args.trim().split(/\s+/).filter(Boolean);
    if (action === undefined) {
      // Every server, not only those with direct tools: codemode and deferred servers are listed too.
      if (mcp) await within(mcp.readyAll(), SETTLE_MS);
      app.conversation.notice("MCP servers", `\n${renderServerStatus(mcp?.status() ?? [])}`, "accent");
      return;
    }
    if ((action !== "reconnect" && action !== "login") || name === undefined || extra.length > 0) {
      app.say(USAGE, "", "error");
      return;
    }
    try {
      await (action === "login" ? login : reconnect)(app, mcp, name);
    } catch (error) {
      app.say(`✗ ${(error as Error).message}`, "", "error");
    }
  },
};
