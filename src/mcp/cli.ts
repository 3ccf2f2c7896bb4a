/**
 * `xcsh mcp list|get|add|remove`: shows and edits the MCP config files (`login|logout`,
 * the OAuth sign-in of a remote server, is login.ts). The user's file
 * (`~/.xcsh/agent/mcp.json`) is the default; `-l` / `--local` means the project's
 * `.xcsh/mcp.json`. `list` and `get` show every file that applies (user, `.mcp.json`,
 * `.xcsh/mcp.json`) and which declaration wins; `list` also connects to each server a run
 * would start (probe.ts), as pi 1.6.0 does. `add` takes pi 1.6.0's options and, like it,
 * replaces an entry of the same name.
 * Output on stdout; problems on stderr with exit code 1 (2 for a usage mistake).
 */
import { existingFiles, projectMcpConfigPath, projectMcpConfigPaths, readMcpFile, userMcpConfigPath, type DeclaredServer } from "./config-files.ts";
import { addServer, removeServer } from "./config-edit.ts";
import { hasStoredSignIn } from "./oauth-provider.ts";
import { entryProblem, isOverrideEntry, isSwitchedOff, planServers } from "./server-plan.ts";
import { getAgentDir } from "../config/paths.ts";
import { MCP_EXPOSURES, MCP_OVERRIDE_KEYS, type McpServerEntry } from "./config-schema.ts";

const USAGE = `Usage:
  xcsh mcp list [-l] [--json] [--no-connect]  MCP servers of every config file, each checked by connecting (-l: the project's only)
  xcsh mcp get <name>                         One server: where it is declared and its entry
  xcsh mcp add [-l] [options] <name> <command> [args...]
  xcsh mcp add [-l] [options] <name> <url>    A remote server (http://… or https://…)
  xcsh mcp remove [-l] <name>
  xcsh mcp login <name>                       Sign in to a remote server that asks for OAuth
  xcsh mcp logout <name>                      Forget that sign-in (auth.json)

Options of add:
  -l, --local                 Write to .xcsh/mcp.json (the project) instead of ~/.xcsh/agent/mcp.json
  --url <url>                 A remote server (also: the URL in place of the command)
  -e, --env KEY=VALUE         Environment for a local server (repeatable)
  --cwd <dir>                 Working directory of a local server
  -H, --header "Name: value"  HTTP header for a remote server (repeatable; Name=value too)
  --bearer-token-env-var NAME Send Authorization: Bearer \${NAME}
  --transport <stdio|http|sse>  How to reach it (default: stdio for a command, http for a URL)
  --exposure <mode>           How its tools reach the model: codemode (default), deferred, direct, hidden
  --description <text>        What the server offers, in a sentence (tool_search ranks by it)
  --oauth-client-id <id>, --oauth-client-secret <s>, --oauth-callback-port <n>, --oauth-client-name <name>
                              A client registered by hand at the server's authorization server
  --oauth-client-registration <auto|cimd|dcr>  Kept in the entry (not applied)
  --                          Everything after is the command and its arguments
An entry of the same name is replaced (shown in the output).

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
        return await list(rest, cwd, output);
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

/** pi 1.6.0's word for the user's scope in `mcp list --json`. */
const JSON_SCOPE = { user: "global", project: "project", temporary: "temporary" } as const;

/**
 * Every declaration of every file that applies, then (pi 1.6.0) a check of each server a
 * run would start: connected with its tools, or why not. Exit 1 when an entry is invalid
 * or an enabled server did not connect. `--no-connect` only lists, as xcsh did before
 * (exit 1 only for an unreadable file); an untrusted project's servers are never started here.
 */
async function list(args: string[], cwd: string, output: Output): Promise<number> {
  const { local, rest } = takeLocal(args);
  const json = rest.includes("--json");
  const connect = !rest.includes("--no-connect");
  const unknown = rest.filter((arg) => !["--json", "--no-connect", "--trust-project", "--no-trust-project"].includes(arg));
  if (unknown.length > 0) throw new UsageError(`list takes -l, --json, --no-connect and --trust-project (got ${unknown.join(" ")})`);
  const { declared, problems } = declarations(cwd, local);
  const { projectTrustedWithoutAsking } = await import("../packages/installed.ts");
  const plan = planServers({ declared, problems: [] }, cwd, projectTrustedWithoutAsking(cwd, getAgentDir(), rest));
  const checked = connect ? await (await import("./probe.ts")).probeServers(plan.servers) : [];
  const result = (name: string) => checked.find((probe) => probe.name === name);
  const invalid = declared.some((declaration) => !isOverrideEntry(declaration.entry) && entryProblem(declaration) !== undefined);
  const down = checked.some((probe) => probe.state !== "connected");
  // pi 1.6.0: an invalid entry or a server that did not connect fails the check; only listing
  // (--no-connect, xcsh's listing before) fails only for a file that cannot be read.
  const exitCode = problems.length > 0 || (connect && (invalid || down || plan.problems.length > 0)) ? 1 : 0;

  if (json) {
    const winners = new Map(declared.map((declaration) => [declaration.name, declaration]));
    const servers = [...winners.values()].map((declaration) => {
      const entry = (declaration.entry ?? {}) as McpServerEntry;
      const probe = result(declaration.name);
      const state = plan.disabled.includes(declaration.name)
        ? "disabled"
        : plan.waitingForTrust.includes(declaration.name)
          ? "waiting-for-trust"
          : (probe?.state ?? (plan.servers.some((spec) => spec.name === declaration.name) ? "not-checked" : "invalid"));
      return {
        name: declaration.name,
        scope: JSON_SCOPE[declaration.scope],
        source: declaration.origin,
        enabled: !isSwitchedOff(entry),
        ...(entry.exposure ? { exposure: entry.exposure } : {}),
        transport: describe(declaration.entry),
        state,
        tools: probe?.tools ?? [],
        ...(probe?.error ? { error: probe.error } : {}),
      };
    });
    output.out(`${JSON.stringify({ servers, errors: [...problems, ...plan.problems] }, null, 2)}\n`);
    return exitCode;
  }

  for (const problem of problems) output.err(`xcsh mcp: ${problem}\n`);
  if (declared.length === 0) {
    output.out(`No MCP servers configured${local ? " for this project" : ""}. Add one with: xcsh mcp add <name> <command> [args...]\n`);
    return exitCode;
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
    const isWinner = winner.get(declaration.name) === declaration;
    if (!isWinner) notes.push("overridden");
    if (switching) {
      const keys = MCP_OVERRIDE_KEYS.filter((key) => entry![key] !== undefined).map((key) => `${key}: ${JSON.stringify(entry![key])}`);
      output.out(`${declaration.name}: (changes the entry above: ${keys.join(", ")})  [${notes.join(", ")}] ${declaration.origin}\n`);
    } else {
      const problem = entryProblem(declaration);
      if (problem) notes.push("invalid");
      output.out(`${declaration.name}: ${describe(declaration.entry)}  [${notes.join(", ")}] ${declaration.origin}\n`);
      if (problem) output.out(`  ${problem}\n`);
    }
    if (isWinner) {
      const probe = result(declaration.name);
      if (probe?.state === "connected") output.out(`  connected: ${probe.tools.length} tool${probe.tools.length === 1 ? "" : "s"}${probe.tools.length > 0 ? ` (${probe.tools.join(", ")})` : ""}\n`);
      else if (probe) output.out(`  ${probe.state}: ${probe.error}\n`);
      else if (plan.waitingForTrust.includes(declaration.name)) output.out("  not started: the project is not trusted (--trust-project)\n");
    }
  }
  // What only planning finds (an unset variable); the entries' own problems are shown above.
  const shown = new Set(declared.map((declaration) => entryProblem(declaration)));
  for (const problem of plan.problems) if (!shown.has(problem)) output.err(`xcsh mcp: ${problem}\n`);
  return exitCode;
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

/** `KEY=VALUE` (pi 1.6.0) or `Name: value` (xcsh's and curl's), whichever separator comes first. */
function headerPair(pair: string): [string, string] {
  const equals = pair.indexOf("=");
  const colon = pair.indexOf(":");
  const at = equals > 0 && (colon < 0 || equals < colon) ? equals : colon;
  if (at <= 0) throw new UsageError(`--header takes "Name: value" or Name=value, got "${pair}"`);
  return [pair.slice(0, at).trim(), pair.slice(at + 1).trim()];
}

/** pi 1.6.0's `--oauth-…` options and the `oauth` field each one sets. */
const OAUTH_OPTIONS: Record<string, string> = {
  "--oauth-client-id": "clientId",
  "--oauth-client-secret": "clientSecret",
  "--oauth-callback-port": "callbackPort",
  "--oauth-client-name": "clientName",
  "--oauth-client-registration": "clientRegistration",
};

function add(args: string[], cwd: string, output: Output): number {
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  const oauth: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  let transport: string | undefined;
  let url: string | undefined;
  let dir: string | undefined;
  let local = false;
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
    else if (arg === "--force") {
      // Replacing is what add does (pi 1.6.0); the flag stays accepted.
    } else if (arg === "-e" || arg === "--env") {
      const pair = value();
      const equals = pair.indexOf("=");
      if (equals <= 0) throw new UsageError(`--env takes KEY=VALUE, got "${pair}"`);
      env[pair.slice(0, equals)] = pair.slice(equals + 1);
    } else if (arg === "-H" || arg === "--header") {
      const [header, text] = headerPair(value());
      headers[header] = text;
    } else if (arg === "--bearer-token-env-var") {
      const variable = value();
      if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(variable)) throw new UsageError(`--bearer-token-env-var takes a variable name, got "${variable}"`);
      headers.Authorization = `Bearer \${${variable}}`;
    } else if (arg === "--url") url = value();
    else if (arg === "--transport" || arg === "-t") {
      transport = value();
      if (!["stdio", "http", "sse"].includes(transport)) throw new UsageError(`--transport is stdio, http or sse, not "${transport}"`);
    } else if (arg === "--cwd") dir = value();
    else if (arg === "--exposure") {
      const exposure = value();
      if (!(MCP_EXPOSURES as readonly string[]).includes(exposure)) throw new UsageError(`--exposure is one of ${MCP_EXPOSURES.join(", ")}, not "${exposure}"`);
      extra.exposure = exposure;
    } else if (arg === "--description") extra.description = value();
    else if (Object.hasOwn(OAUTH_OPTIONS, arg)) {
      const text = value();
      oauth[OAUTH_OPTIONS[arg]!] = arg === "--oauth-callback-port" ? Number(text) : text;
    } else if (arg.startsWith("-") && positional.length < 2) throw new UsageError(`Unknown option ${arg} for add (put the command after --)`);
    else positional.push(arg);
  }
  const [name, positionalTarget, ...commandArgs] = positional;
  if (url !== undefined && positionalTarget !== undefined) throw new UsageError(`--url ${url} and a command (${positionalTarget}) cannot both be given`);
  const target = url ?? positionalTarget;
  if (!name || !target) throw new UsageError("add needs a name and a command (after --) or --url <url>");
  const remote = url !== undefined || transport === "http" || transport === "sse" || (transport === undefined && /^https?:\/\//.test(target));
  let entry: Record<string, unknown>;
  if (remote) {
    if (commandArgs.length > 0) throw new UsageError(`a remote server takes no arguments after its URL (got ${commandArgs.join(" ")})`);
    if (Object.keys(env).length > 0 || dir !== undefined) throw new UsageError("--env and --cwd are for local servers; a remote one takes --header");
    entry = {
      type: transport ?? "http",
      url: target,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(Object.keys(oauth).length > 0 ? { oauth } : {}),
    };
  } else {
    if (Object.keys(headers).length > 0) throw new UsageError("--header and --bearer-token-env-var are for remote servers; a local one takes --env");
    if (Object.keys(oauth).length > 0) throw new UsageError("--oauth-… options are for remote servers (--url)");
    entry = { command: target, args: commandArgs, ...(Object.keys(env).length > 0 ? { env } : {}), ...(dir !== undefined ? { cwd: dir } : {}) };
  }
  Object.assign(entry, extra);
  const file = local ? projectMcpConfigPath(cwd) : userMcpConfigPath();
  const problem = entryProblem({ name, entry, scope: local ? "project" : "user", origin: file });
  if (problem) throw new UsageError(problem);
  const before = readMcpFile(file, local ? "project" : "user").servers.find((server) => server.name === name);
  addServer(file, name, entry, true);
  // Like pi 1.6.0, add replaces an entry of the same name; what was there is shown, so nothing is lost unseen.
  if (before) output.out(`Replaced MCP server "${name}" in ${file} (it was: ${describe(before.entry)})\n`);
  else output.out(`Added MCP server "${name}" to ${file}\n`);
  if (local) output.out("It starts once the project is trusted (--trust-project, or answer the trust question).\n");
  output.out(`Check it with: xcsh mcp list${local ? " --trust-project" : ""}\n`);
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
