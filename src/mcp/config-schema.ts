/**
 * The shape of an `mcpServers` entry, as xcsh reads it from `mcp.json` / `.mcp.json`
 * (the format Claude Code, Cursor and others write, so one file serves them all):
 * a stdio server `{command, args, env, cwd}` or a remote one `{url, headers, type}`,
 * plus xcsh's `disabled`, `timeout`, `startupTimeout` and `sandbox`, and pi 1.x's `enabled`,
 * `exposure`, `toolExposure` and `description`. Keys xcsh does not know are
 * allowed (other tools add their own); a known key of the wrong type is an error that
 * names it. Only the schema and the types live here: no I/O.
 */
import { Type } from "../schema/type.ts";

const StringMap = Type.Record(Type.String(), Type.String());

/** pi 1.x's tool exposures (`codemode-deferred` is its alias of `codemode`). */
export const MCP_EXPOSURES = ["codemode", "codemode-deferred", "deferred", "direct", "hidden"] as const;
export type McpExposure = (typeof MCP_EXPOSURES)[number];

/** The keys a project entry without `command`, `url` or `type` may change on the user's entry of that name. */
export const MCP_OVERRIDE_KEYS = ["enabled", "disabled", "exposure", "toolExposure"] as const;

export const McpServerEntrySchema = Type.Object({
  type: Type.Optional(Type.Enum(["stdio", "http", "sse", "streamable-http"])),
  command: Type.Optional(Type.String({ minLength: 1 })),
  args: Type.Optional(Type.Array(Type.String())),
  env: Type.Optional(StringMap),
  cwd: Type.Optional(Type.String({ minLength: 1 })),
  url: Type.Optional(Type.String({ minLength: 1 })),
  headers: Type.Optional(StringMap),
  disabled: Type.Optional(Type.Boolean()),
  /** pi 1.x's switch: false keeps the entry without connecting (the same as `"disabled": true`). */
  enabled: Type.Optional(Type.Boolean()),
  /** pi 1.x: how the server's tools reach the model (src/mcp/exposure.ts); `codemode` when absent. */
  exposure: Type.Optional(Type.Enum(MCP_EXPOSURES)),
  /** pi 1.x: per-tool exposure (server tool names or `*` patterns). */
  toolExposure: Type.Optional(Type.Record(Type.String(), Type.Enum(MCP_EXPOSURES))),
  /** pi 1.x: what the server offers, in a sentence. */
  description: Type.Optional(Type.String()),
  /**
   * pi 1.x: the OAuth client a remote server's sign-in uses. `clientId` (with
   * `clientSecret`) is a client registered beforehand, for servers that offer no dynamic
   * registration; `callbackPort` the local port the browser returns to; `clientName` the
   * name a dynamic registration gives. The rest are kept without effect.
   */
  oauth: Type.Optional(
    Type.Object({
      clientId: Type.Optional(Type.String()),
      clientSecret: Type.Optional(Type.String()),
      callbackPort: Type.Optional(Type.Integer({ minimum: 1, maximum: 65535 })),
      callbackUrl: Type.Optional(Type.String()),
      clientName: Type.Optional(Type.String()),
      clientRegistration: Type.Optional(Type.Enum(["auto", "cimd", "dcr"])),
      authServerMetadataUrl: Type.Optional(Type.String()),
    }),
  ),
  /** Seconds a tool call may take before it is cancelled. */
  timeout: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
  /** Seconds the first prompt waits for this server to connect. */
  startupTimeout: Type.Optional(Type.Number({ minimum: 0 })),
  /** false: a stdio server runs outside xcsh's sandbox (`--sandbox`), with your rights. */
  sandbox: Type.Optional(Type.Boolean()),
});

export const McpFileSchema = Type.Object({
  mcpServers: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  /** pi 1.x: false keeps codemode off when servers of `codemode` exposure are configured. */
  autoEnableCodemode: Type.Optional(Type.Boolean()),
});

/** Where a server was declared: the scope decides trust, the file is shown to the person. */
export type McpScope = "user" | "project" | "temporary";

export interface McpServerEntry {
  type?: "stdio" | "http" | "sse" | "streamable-http";
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  disabled?: boolean;
  enabled?: boolean;
  exposure?: McpExposure;
  toolExposure?: Record<string, McpExposure>;
  description?: string;
  oauth?: McpOAuthClientConfig;
  timeout?: number;
  startupTimeout?: number;
  sandbox?: boolean;
}

/** The parts of pi 1.x's `oauth` object xcsh applies (the others stay in the file). */
export interface McpOAuthClientConfig {
  clientId?: string;
  clientSecret?: string;
  callbackPort?: number;
  clientName?: string;
}

/** One server as a run uses it: variables expanded, the transport decided. */
export type McpServerSpec = McpServerCommon & (McpStdioSpec | McpRemoteSpec);

interface McpServerCommon {
  name: string;
  scope: McpScope;
  /** The file it came from, or a description of where (`ACP client`). */
  origin: string;
  /** Milliseconds a tool call may take. */
  callTimeoutMs: number;
  /** Milliseconds the first prompt waits for the connection. */
  startupWaitMs: number;
  exposure?: McpExposure;
  toolExposure?: Record<string, McpExposure>;
  /** What the server offers, in a sentence (tool_search and searchTools() rank by it). */
  description?: string;
}

export interface McpStdioSpec {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Run under xcsh's sandbox when one is on (unless the entry says `"sandbox": false`). */
  sandboxed: boolean;
}

export interface McpRemoteSpec {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** The OAuth client the entry names (variables expanded), when it names one. */
  oauth?: McpOAuthClientConfig;
}

/** Long enough for a build or a test run behind a tool; a hung server is still noticed. */
export const DEFAULT_CALL_TIMEOUT_SECONDS = 600;
/** How long the first prompt waits for a server still connecting. */
export const DEFAULT_STARTUP_WAIT_SECONDS = 10;
