/**
 * `xcsh mcp list|get|add|remove`: shows and edits the MCP config files without
 * connecting to anything (`login|logout`, the OAuth sign-in of a remote server, is login.ts). The user's file (`~/.xcsh/agent/mcp.json`) is the default;
 * `-l` / `--local` means the project's `.xcsh/mcp.json`. `list` and `get` show every
 * file that applies (user, `.mcp.json`, `.xcsh/mcp.json`) and which declaration wins.
 * Output on stdout; problems on stderr with exit code 1 (2 for a usage mistake).
 */
import { existingFiles, projectMcpConfigPath, projectMcpConfigPaths, readMcpFile, userMcpConfigPath, type DeclaredServer } from "./config-files.ts";
import { addServer, removeServer } from "./config-edit.ts";
import { hasStoredSignIn } from "./oauth-provider.ts";
import { entryProblem, isOverrideEntry, isSwitchedOff } from "./server-plan.ts";
import { MCP_OVERRIDE_KEYS, type McpServerEntry } from "./config-schema.ts";

const USAGE = `Usage:
  xcsh mcp list [-l]                          MCP servers of every config file (-l: the project's only)
  xcsh mcp get <name>                         One server: where it is declared and its entry
  xcsh mcp add [-l] [options] <name> <command> [args...]
  xcsh mcp add [-l] [options] <name> <url>    A remote server (http://… or https://…)
  xcsh mcp remove [-l] <name>
  xcsh mcp login <name>                       Sign in to a remote server that asks for OAuth
  xcsh mcp logout <name>                      Forget that sign-in (auth.json)

Options of add:
  -l, --local                 Write to .xcsh/mcp.json (the project) instead of ~/.xcsh/agent/mcp.json
  -e, --env KEY=VALUE         Environment for a local server (repeatable)
  -H, --header "Name: value"  HTTP header for a remote server (repeatable)
  --transport <stdio|http|sse>  How to reach it (default: stdio for a command, http for a URL)
  --cwd <dir>                 Working directory of a local server
  --force                     Replace a server of the same name
  --                          Everything after is the command and its arguments

Values may use \${VAR} and \${VAR:-default}; they are expanded when xcsh starts the server.
Project servers start only once the project is trusted (docs/mcp.md).
`;

class UsageError extends Error {}

interface Output {
  out(text: string): void;
  err(text: string): void;
}

const defaultOutput: Output = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

export async function runMcpCommand(argv: string[], cwd = process.cwd(), output: Output = defaultOutput): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case "list":
        return list(rest, cwd, output);
      case "get":
        return get(rest, cwd, output);
      case "add":
        return add(rest, cwd, output);
      case "remove":
      case "rm":
        return remove(rest, cwd, output);
      case "login":
      case "logout": {
        if (rest.length !== 1) throw new UsageError(`${command} takes one server name`);
        const { loginMcpServer, logoutMcpServer } = await import("./login.ts");
        return await (command === "login" ? loginMcpServer : logoutMcpServer)(rest[0], cwd, output);
      }
      case undefined:
      case "help":
      case "-h":
      case "--help":
        output.out(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`Unknown mcp command "${command}"`);
    }
  } catch (error) {
    if (error instanceof UsageError) {
      output.err(`xcsh mcp: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    output.err(`xcsh mcp: ${(error as Error).message}\n`);
    return 1;
  }
}

function takeLocal(args: string[]): { local: boolean; rest: string[] } {
  const rest = args.filter((arg) => arg !== "-l" && arg !== "--local");
  return { local: rest.length !== args.length, rest };
}

/** Every declaration, in merge order, with the problems of files that could not be read. */
function declarations(cwd: string, projectOnly: boolean): { declared: DeclaredServer[]; problems: string[] } {
  const files: [string, DeclaredServer["scope"]][] = [
    ...(projectOnly ? [] : [[userMcpConfigPath(), "user"] as [string, DeclaredServer["scope"]]]),
    ...existingFiles(projectMcpConfigPaths(cwd)).map((file): [string, DeclaredServer["scope"]] => [file, "project"]),
  ];
  const declared: DeclaredServer[] = [];
  const problems: string[] = [];
  for (const [file, scope] of files) {
    const read = readMcpFile(file, scope);
    declared.push(...read.servers);
    problems.push(...read.problems);
  }
  return { declared, problems };
}

function describe(entry: unknown): string {
  if (typeof entry !== "object" || entry === null) return "(not an object)";
  const typed = entry as Record<string, unknown>;
  if (typeof typed.command === "string") return [typed.command, ...(Array.isArray(typed.args) ? typed.args.map(String) : [])].join(" ");
  if (typeof typed.url === "string") return `${typed.url} (${typed.type === "sse" ? "sse" : "http"})`;
  return "(no command or url)";
}

function list(args: string[], cwd: string, output: Output): number {
  const { local, rest } = takeLocal(args);
  if (rest.length > 0) throw new UsageError(`list takes no arguments besides -l (got ${rest.join(" ")})`);
  const { declared, problems } = declarations(cwd, local);
  for (const problem of problems) output.err(`xcsh mcp: ${problem}\n`);
  if (declared.length === 0) {
    output.out(`No MCP servers configured${local ? " for this project" : ""}. Add one with: xcsh mcp add <name> <command> [args...]\n`);
    return problems.length > 0 ? 1 : 0;
  }
  const winner = new Map(declared.map((declaration) => [declaration.name, declaration]));
  const seen = new Set<string>();
  for (const declaration of declared) {
    const notes: string[] = [declaration.scope];
    const entry = declaration.entry as Record<string, unknown> | null;
    // pi 1.x: an entry without command/url/type after one of the same name only switches it.
    const switching = seen.has(declaration.name) && isOverrideEntry(entry);
    seen.add(declaration.name);
    if (isSwitchedOff(entry as McpServerEntry | null)) notes.push("disabled");
    if (entry && typeof entry.url === "string" && URL.canParse(entry.url) && hasStoredSignIn(entry.url)) notes.push("signed in");
    if (winner.get(declaration.name) !== declaration) notes.push("overridden");
    if (switching) {
      const keys = MCP_OVERRIDE_KEYS.filter((key) => entry![key] !== undefined).map((key) => `${key}: ${JSON.stringify(entry![key])}`);
      output.out(`${declaration.name}: (changes the entry above: ${keys.join(", ")})  [${notes.join(", ")}] ${declaration.origin}\n`);
      continue;
    }
    const problem = entryProblem(declaration);
    if (problem) notes.push("invalid");
    output.out(`${declaration.name}: ${describe(declaration.entry)}  [${notes.join(", ")}] ${declaration.origin}\n`);
    if (problem) output.out(`  ${problem}\n`);
  }
  return problems.length > 0 ? 1 : 0;
}

function get(args: string[], cwd: string, output: Output): number {
  if (args.length !== 1) throw new UsageError("get takes one server name");
  const [name] = args;
  const { declared, problems } = declarations(cwd, false);
  for (const problem of problems) output.err(`xcsh mcp: ${problem}\n`);
  const found = declared.filter((declaration) => declaration.name === name);
  if (found.length === 0) {
    output.err(`xcsh mcp: no MCP server "${name}" in ${[userMcpConfigPath(), ...projectMcpConfigPaths(cwd)].join(", ")}\n`);
    return 1;
  }
  const used = found[found.length - 1];
  output.out(`${name} (${used.scope}, ${used.origin})\n${JSON.stringify(used.entry, null, 2)}\n`);
  for (const other of found.slice(0, -1)) output.out(`Also declared in ${other.origin} (overridden).\n`);
  const problem = entryProblem(used);
  if (problem) output.out(`${problem}\n`);
  return 0;
}

function add(args: string[], cwd: string, output: Output): number {
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  let transport: string | undefined;
  let dir: string | undefined;
  let local = false;
  let force = false;
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    const value = () => {
      const next = args[++i];
      if (next === undefined) throw new UsageError(`${arg} needs a value`);
      return next;
    };
    if (arg === "--") {
      positional.push(...args.slice(i + 1));
      break;
    }
    // Once the name and the command are known, the rest belongs to the command.
    if (positional.length >= 2) {
      positional.push(arg);
      continue;
    }
    if (arg === "-l" || arg === "--local") local = true;
    else if (arg === "--force") force = true;
    else if (arg === "-e" || arg === "--env") {
      const pair = value();
      const equals = pair.indexOf("=");
      if (equals <= 0) throw new UsageError(`--env takes KEY=VALUE, got "${pair}"`);
      env[pair.slice(0, equals)] = pair.slice(equals + 1);
    } else if (arg === "-H" || arg === "--header") {
      const pair = value();
      const colon = pair.indexOf(":");
      if (colon <= 0) throw new UsageError(`--header takes "Name: value", got "${pair}"`);
      headers[pair.slice(0, colon).trim()] = pair.slice(colon + 1).trim();
    } else if (arg === "--transport" || arg === "-t") {
      transport = value();
      if (!["stdio", "http", "sse"].includes(transport)) throw new UsageError(`--transport is stdio, http or sse, not "${transport}"`);
    } else if (arg === "--cwd") dir = value();
    else if (arg.startsWith("-") && positional.length < 2) throw new UsageError(`Unknown option ${arg} for add (put the command after --)`);
    else positional.push(arg);
  }
  const [name, target, ...commandArgs] = positional;
  if (!name || !target) throw new UsageError("add needs a name and a command or URL");
  const remote = transport === "http" || transport === "sse" || (transport === undefined && /^https?:\/\//.test(target));
  let entry: Record<string, unknown>;
  if (remote) {
    if (commandArgs.length > 0) throw new UsageError(`a remote server takes no arguments after its URL (got ${commandArgs.join(" ")})`);
    if (Object.keys(env).length > 0 || dir !== undefined) throw new UsageError("--env and --cwd are for local servers; a remote one takes --header");
    entry = { type: transport ?? "http", url: target, ...(Object.keys(headers).length > 0 ? { headers } : {}) };
  } else {
    if (Object.keys(headers).length > 0) throw new UsageError("--header is for remote servers; a local one takes --env");
    entry = { command: target, args: commandArgs, ...(Object.keys(env).length > 0 ? { env } : {}), ...(dir !== undefined ? { cwd: dir } : {}) };
  }
  const file = local ? projectMcpConfigPath(cwd) : userMcpConfigPath();
  const problem = entryProblem({ name, entry, scope: local ? "project" : "user", origin: file });
  if (problem) throw new UsageError(problem);
  addServer(file, name, entry, force);
  output.out(`Added MCP server "${name}" to ${file}\n`);
  if (local) output.out("It starts once the project is trusted (--trust-project, or answer the trust question).\n");
  return 0;
}

function remove(args: string[], cwd: string, output: Output): number {
  const { local, rest } = takeLocal(args);
  if (rest.length !== 1) throw new UsageError("remove takes one server name");
  const [name] = rest;
  const file = local ? projectMcpConfigPath(cwd) : userMcpConfigPath();
  if (removeServer(file, name)) {
    output.out(`Removed MCP server "${name}" from ${file}\n`);
    return 0;
  }
  const elsewhere = declarations(cwd, false).declared.find((declaration) => declaration.name === name);
  const hint = elsewhere ? ` It is declared in ${elsewhere.origin}${elsewhere.scope === "project" && !local ? " (use -l for .xcsh/mcp.json, or edit that file)" : ""}.` : "";
  output.err(`xcsh mcp: no MCP server "${name}" in ${file}.${hint}\n`);
  return 1;
}
