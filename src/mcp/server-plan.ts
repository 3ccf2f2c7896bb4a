/**
 * Which MCP servers a run connects, decided from the declarations: user file, then
 * the project's files, then `--mcp-config` files, then servers an ACP client sent —
 * a later declaration of a name wins, and one with `"disabled": true` or `"enabled": false`
 * switches it off. A later entry without `command`, `url` or `type` (pi 1.x's project
 * override) changes only `enabled`, `disabled`, `exposure` and `toolExposure` of the
 * earlier one and keeps the rest (env, headers).
 * The project's declarations count only once the project is trusted (they start
 * programs, and their URLs and headers could carry the environment elsewhere); until
 * then a user server of the same name stands. Each entry is checked on its own, so a
 * bad one is reported and skipped while the rest start. Pure apart from reading files.
 */
import { isAbsolute, resolve } from "node:path";
import { fitsSchema, typeboxValue } from "../schema/validate.ts";
import { describeSchemaErrors } from "../config/json-file.ts";
import {
  DEFAULT_CALL_TIMEOUT_SECONDS,
  DEFAULT_STARTUP_WAIT_SECONDS,
  MCP_OVERRIDE_KEYS,
  McpServerEntrySchema,
  type McpServerEntry,
  type McpOAuthClientConfig,
  type McpServerSpec,
} from "./config-schema.ts";
import { existingFiles, projectMcpConfigPaths, readMcpFile, userMcpConfigPath, type DeclaredServer } from "./config-files.ts";
import { expandMap as expandMapWith, expandVariables as expandWith, MissingVariableError } from "./expand-vars.ts";

export interface McpSources {
  cwd: string;
  /** false with --no-mcp: the user's and the project's files are not read. */
  useConfigFiles: boolean;
  /** --mcp-config files, as given (relative to cwd). */
  cliFiles: readonly string[];
  /** Servers from elsewhere (an ACP client's session/new), after every file. */
  extra?: readonly DeclaredServer[];
  /** Servers extensions registered (pi.registerMcpServer), read each time, before every file: a file's server of the name wins. */
  registered?: () => readonly DeclaredServer[];
}

export interface McpDeclarations {
  /** In merge order. */
  declared: DeclaredServer[];
  /** Files that could not be used. */
  problems: string[];
  /** Each file's `autoEnableCodemode`, in merge order. */
  codemodeSwitches?: { scope: DeclaredServer["scope"]; value: boolean }[];
}

export interface McpPlan {
  servers: McpServerSpec[];
  /** Entries that cannot be used (bad field, unset variable), one line each. */
  problems: string[];
  /** Project servers left out because the project is not trusted (by name). */
  waitingForTrust: string[];
  /** Declared servers switched off (`"enabled": false`, `"disabled": true`), by name. */
  disabled: string[];
  /** Keys accepted but not acted on, one line per server: worth telling, not a problem. */
  notes: string[];
  /** Whether codemode comes on for servers of `codemode` exposure (the last file's `autoEnableCodemode`; true by default). */
  autoEnableCodemode: boolean;
}

/** Reads every file that applies, in merge order. */
export function readDeclarations(sources: McpSources): McpDeclarations {
  const declared: DeclaredServer[] = [];
  const problems: string[] = [];
  const codemodeSwitches: { scope: DeclaredServer["scope"]; value: boolean }[] = [];
  declared.push(...(sources.registered?.() ?? []));
  const take = (file: string, scope: DeclaredServer["scope"]) => {
    const read = readMcpFile(file, scope);
    declared.push(...read.servers);
    problems.push(...read.problems);
    if (read.autoEnableCodemode !== undefined) codemodeSwitches.push({ scope, value: read.autoEnableCodemode });
  };
  if (sources.useConfigFiles) {
    take(userMcpConfigPath(), "user");
    for (const file of existingFiles(projectMcpConfigPaths(sources.cwd))) take(file, "project");
  }
  for (const given of sources.cliFiles) {
    const file = resolve(sources.cwd, given);
    if (existingFiles([file]).length === 0) problems.push(`--mcp-config ${given}: no such file (${file})`);
    else take(file, "temporary");
  }
  declared.push(...(sources.extra ?? []));
  return { declared, problems, codemodeSwitches };
}

/** The servers to connect: the winning declaration of each name, checked and expanded. */
export function planServers(declarations: McpDeclarations, cwd: string, projectTrusted: boolean, env: Record<string, string | undefined> = process.env): McpPlan {
  const winners = new Map<string, DeclaredServer>();
  const waitingForTrust = new Set<string>();
  const problems = [...declarations.problems];
  for (const declaration of declarations.declared) {
    if (declaration.scope === "project" && !projectTrusted) {
      waitingForTrust.add(declaration.name);
      continue;
    }
    const earlier = winners.get(declaration.name);
    // pi 1.x: an entry without command, url or type changes only the switches of the one before it.
    if (earlier && isOverrideEntry(declaration.entry) && fitsSchema(McpServerEntrySchema, declaration.entry)) {
      winners.set(declaration.name, overridden(earlier, declaration));
      continue;
    }
    const problem = entryProblem(declaration);
    if (problem) {
      // A broken later declaration must not leave an earlier one of the name running.
      winners.delete(declaration.name);
      problems.push(problem);
      continue;
    }
    winners.set(declaration.name, declaration);
  }
  const servers: McpServerSpec[] = [];
  const disabled: string[] = [];
  const notes: string[] = [];
  for (const declaration of winners.values()) {
    if (isSwitchedOff(declaration.entry as McpServerEntry)) {
      disabled.push(declaration.name);
      continue;
    }
    const oauth = (declaration.entry as McpServerEntry).oauth as Record<string, unknown> | undefined;
    const inert = INERT_OAUTH_KEYS.filter((key) => oauth?.[key] !== undefined);
    if (inert.length > 0) {
      notes.push(`MCP server "${declaration.name}" (${declaration.origin}): keys xcsh accepts but does not apply: ${inert.map((key) => `"oauth.${key}"`).join(", ")}. See docs/mcp.md.`);
    }
    try {
      servers.push(toSpec(declaration, cwd, env));
    } catch (error) {
      const why = error instanceof MissingVariableError ? `${error.message}; set it, or give a default as \${${error.variable}:-value}` : (error as Error).message;
      problems.push(`MCP server "${declaration.name}" (${declaration.origin}): ${why}. The server is not started.`);
    }
  }
  // A project's switch counts once it is trusted, like its servers.
  const switches = (declarations.codemodeSwitches ?? []).filter((item) => item.scope !== "project" || projectTrusted);
  const autoEnableCodemode = switches.at(-1)?.value ?? true;
  return { servers, problems, waitingForTrust: [...waitingForTrust], disabled, notes, autoEnableCodemode };
}

/** pi 1.x's `oauth` keys kept in the entry that change nothing in xcsh yet. */
const INERT_OAUTH_KEYS = ["clientRegistration", "callbackUrl", "authServerMetadataUrl"] as const;

/** `"enabled": false` (pi 1.x) or `"disabled": true` (xcsh, pi 0.x): declared, not connected. */
export function isSwitchedOff(entry: McpServerEntry | null | undefined): boolean {
  return typeof entry === "object" && entry !== null && (entry.enabled === false || entry.disabled === true);
}

/** An entry that says neither how to start nor where to reach a server: an override of an earlier one. */
export function isOverrideEntry(entry: unknown): boolean {
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return false;
  const typed = entry as McpServerEntry;
  return typed.command === undefined && typed.url === undefined && typed.type === undefined;
}

/** `earlier` with the override's enabled/disabled/exposure/toolExposure; everything else (env, headers…) stays. */
function overridden(earlier: DeclaredServer, override: DeclaredServer): DeclaredServer {
  const entry: Record<string, unknown> = { ...(earlier.entry as Record<string, unknown>) };
  const changes = override.entry as Record<string, unknown>;
  for (const key of MCP_OVERRIDE_KEYS) if (changes[key] !== undefined) entry[key] = changes[key];
  // The later switch decides: one file's "enabled": true turns on what the other's "disabled": true turned off.
  if (changes.enabled !== undefined && changes.disabled === undefined) delete entry.disabled;
  if (changes.disabled !== undefined && changes.enabled === undefined) delete entry.enabled;
  return { ...earlier, entry, origin: `${earlier.origin}, switched by ${override.origin}` };
}

/** What is wrong with an entry, naming the server, the file and the field; undefined when it is usable. */
export function entryProblem(declaration: DeclaredServer): string | undefined {
  const { name, entry, origin } = declaration;
  const where = `MCP server "${name}" (${origin})`;
  if (name.trim() === "") return `${origin}: an MCP server needs a name (found "")`;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) return `${where}: expected an object with "command" or "url"`;
  if (!fitsSchema(McpServerEntrySchema, entry)) {
    const details = describeSchemaErrors(typeboxValue().Errors(McpServerEntrySchema, entry), entry);
    return `${where}: ${details.join("; ")}`;
  }
  const typed = entry as McpServerEntry;
  if (isSwitchedOff(typed)) return undefined;
  if (typed.command !== undefined && typed.url !== undefined) return `${where}: give either "command" (a local server) or "url" (a remote one), not both`;
  if (typed.command === undefined && typed.url === undefined) return `${where}: needs "command" (a local server) or "url" (a remote one)`;
  if (typed.type === "stdio" && typed.command === undefined) return `${where}: "type": "stdio" needs "command"`;
  if (typed.type !== undefined && typed.type !== "stdio" && typed.url === undefined) return `${where}: "type": "${typed.type}" needs "url"`;
  return undefined;
}

function toSpec(declaration: DeclaredServer, cwd: string, processEnv: Record<string, string | undefined>): McpServerSpec {
  const entry = declaration.entry as McpServerEntry;
  // Values a client sent are literal; a file's get their variables.
  const expandVariables = declaration.literal ? (text: string) => text : (text: string) => expandWith(text, processEnv);
  const expandMap = (map: Record<string, string> | undefined) => (declaration.literal ? { ...map } : expandMapWith(map, processEnv));
  const common = {
    name: declaration.name,
    scope: declaration.scope,
    origin: declaration.origin,
    callTimeoutMs: (entry.timeout ?? DEFAULT_CALL_TIMEOUT_SECONDS) * 1000,
    startupWaitMs: (entry.startupTimeout ?? DEFAULT_STARTUP_WAIT_SECONDS) * 1000,
    ...(entry.exposure !== undefined ? { exposure: entry.exposure } : {}),
    ...(entry.toolExposure !== undefined ? { toolExposure: entry.toolExposure } : {}),
    ...(entry.description !== undefined ? { description: entry.description } : {}),
  };
  if (entry.command !== undefined) {
    const dir = entry.cwd === undefined ? cwd : expandVariables(entry.cwd);
    return {
      ...common,
      transport: "stdio",
      command: expandVariables(entry.command),
      args: (entry.args ?? []).map((arg) => expandVariables(arg)),
      env: expandMap(entry.env),
      cwd: isAbsolute(dir) ? dir : resolve(cwd, dir),
      // A project's own file cannot take its servers out of the sandbox: that is what the sandbox guards against.
      sandboxed: entry.sandbox !== false || declaration.scope === "project",
    };
  }
  const url = expandVariables(entry.url!);
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`"url" must be an http:// or https:// address, got "${url}"`);
  const oauth = oauthClientOf(entry.oauth, expandVariables);
  return { ...common, transport: entry.type === "sse" ? "sse" : "http", url, headers: expandMap(entry.headers), ...(oauth ? { oauth } : {}) };
}

/** The OAuth client settings xcsh applies, variables expanded (a secret is often `${VAR}`); undefined when none is set. */
function oauthClientOf(config: McpOAuthClientConfig | undefined, expand: (text: string) => string): McpOAuthClientConfig | undefined {
  if (!config) return undefined;
  const client: McpOAuthClientConfig = {
    ...(config.clientId !== undefined ? { clientId: expand(config.clientId) } : {}),
    ...(config.clientSecret !== undefined ? { clientSecret: expand(config.clientSecret) } : {}),
    ...(config.callbackPort !== undefined ? { callbackPort: config.callbackPort } : {}),
    ...(config.clientName !== undefined ? { clientName: expand(config.clientName) } : {}),
  };
  return Object.keys(client).length > 0 ? client : undefined;
}

/** Two specs start the same server (a reload keeps a connection whose spec did not change). */
export function sameServer(a: McpServerSpec, b: McpServerSpec): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}
