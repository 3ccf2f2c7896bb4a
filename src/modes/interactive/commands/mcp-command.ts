/**
 * /mcp: the session's MCP servers — each one's state (connecting, connected, failed,
 * needs-auth, disabled, waiting-for-trust), its tool, prompt and resource counts and
 * its last error — and `/mcp reconnect <name>`, which reads the config again and
 * connects that one server afresh (after fixing its entry, or after `xcsh mcp login`).
 * The rows come from the session's MCP link (src/mcp/start.ts); this only prints them.
 */
import { renderServerStatus } from "../../../mcp/status.ts";
import { within } from "../../../mcp/wait.ts";

/** Servers still connecting get this long to finish before the list is shown (a hung one shows as connecting). */
const SETTLE_MS = 3_000;
import type { BuiltinCommand } from "../app.ts";

export const mcpCommand: BuiltinCommand = {
  name: "mcp",
  description: "MCP servers: state, tools, last error; /mcp reconnect <name>",
  argumentHint: "[reconnect <name>]",
  async run(app, args) {
    const mcp = app.session?.mcp;
    const [action, name, ...extra] = args.trim().split(/\s+/).filter(Boolean);
    if (action === undefined) {
      if (mcp) await within(mcp.ready(), SETTLE_MS);
      app.conversation.notice("MCP servers", `\n${renderServerStatus(mcp?.status() ?? [])}`, "accent");
      return;
    }
    if (action !== "reconnect" || name === undefined || extra.length > 0) {
      app.say("✗ Usage: /mcp, or /mcp reconnect <name>", "", "error");
      return;
    }
    if (!mcp) {
      app.say(`✗ No MCP server "${name}": this session has no MCP servers (was it started with --no-mcp?)`, "", "error");
      return;
    }
    app.say(`Reconnecting MCP server "${name}" …`, "", "dim");
    try {
      const status = await mcp.reconnect(name);
      app.conversation.notice("MCP servers", `\n${renderServerStatus([status])}`, status.state === "connected" ? "accent" : "error");
    } catch (error) {
      app.say(`✗ ${(error as Error).message}`, "", "error");
    }
  },
};
