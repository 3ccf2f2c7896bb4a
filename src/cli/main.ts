#!/usr/bin/env bun
/**
 * The xcsh entry point. Only argument parsing, help and version are loaded up
 * front; each mode and the provider SDKs are imported when a command needs them,
 * so `xcsh --version` starts in milliseconds.
 */
import { resolve } from "node:path";
import { parseArgs } from "./args.ts";
import { HELP_TEXT } from "./help.ts";
import { versionText } from "./version.ts";
import { reportFatal } from "./fatal.ts";
import { markAgentProcess } from "../tools/session-environment.ts";
import { missingSubcommand } from "./missing-subcommands.ts";
import { endStartupJitPolicyLater } from "../core/startup-jit.ts";

/**
 * The API extensions import as `xcsh` (and pi's package names). Only the entry point
 * imports it, and only when an extension loads; the loader receives it from here.
 */
/**
 * Plain output for --help and --version, through Bun's writer for fd 1 rather than
 * process.stdout, whose node stream classes cost start-up milliseconds. A reader
 * that already went away (`xcsh --version | true`) is not an error.
 */
async function printToStdout(text: string): Promise<void> {
  try {
    await Bun.write(Bun.stdout, text);
  } catch (error) {
    if ((error as { code?: string }).code !== "EPIPE") throw error;
  }
}

const loadHostApi = async (): Promise<Record<string, unknown>> => ({ ...(await import("../index.ts")) });

async function main(argv: string[]): Promise<number> {
  // Start-up runs with the JIT held back (src/core/startup-jit.ts); it comes back soon.
  endStartupJitPolicyLater();
  // First of all: a key on the command line is readable by every user (ps) until it is gone
  // (src/cli/api-key-argv.ts, loaded only for such a run or the one it re-executes).
  // `xcsh auth login <p> --api-key` (pi 1.6.0) is a switch with no value: the key is read from input.
  const takesKeyValue = argv[0] !== "auth";
  if (process.env.XCSH_ARGV_API_KEY !== undefined || (takesKeyValue && argv.some((arg) => arg === "--api-key" || arg.startsWith("--api-key=")))) {
    const { moveApiKeyOutOfCommandLine } = await import("./api-key-argv.ts");
    argv = moveApiKeyOutOfCommandLine(argv);
  }
  // The network relay inside a sandbox whose network is a list of hosts (src/sandbox/proxy-relay.ts): internal.
  if (argv[0] === "--sandbox-relay") {
    const { runSandboxRelay } = await import("../sandbox/proxy-relay.ts");
    // Exits at once with the command's status: nothing of the relay may outlive it.
    process.exit(await runSandboxRelay(argv.slice(1)));
  }
  // The process watchdog (src/tools/process-watchdog.ts): not a user-facing option.
  if (argv.length === 1 && argv[0] === "--watchdog") {
    const { runWatchdog } = await import("../tools/process-watchdog.ts");
    return runWatchdog();
  }
  // `xcsh mcp list|get|add|remove`: edits and shows the MCP config files (src/mcp/cli.ts).
  if (argv[0] === "mcp") {
    const { runMcpCommand } = await import("../mcp/cli.ts");
    return runMcpCommand(argv.slice(1));
  }
  // `xcsh models update`: refreshes the model catalog from models.dev, on request only (src/cli/models-command.ts).
  if (argv[0] === "models") {
    const { runModelsCommand } = await import("./models-command.ts");
    return runModelsCommand(argv.slice(1));
  }
  // `xcsh auth login|logout|status [provider]`: the credentials in auth.json (src/auth/);
  // `check|print-api-key|print-bearer-token` (pi 1.6.0) resolve them through the registry (cli/auth-credentials.ts).
  if (argv[0] === "auth") {
    const credentials = await import("./auth-credentials.ts");
    if (credentials.isCredentialCommand(argv[1])) return credentials.runCredentialCommand(argv[1], argv.slice(2));
    const { runAuthCommand } = await import("./auth-command.ts");
    return runAuthCommand(argv.slice(1));
  }
  // `xcsh config [list|enable|disable …]`: which resources of each package load (src/packages/config-command.ts).
  if (argv[0] === "config") {
    const { runConfigCommand } = await import("../packages/config-command.ts");
    return runConfigCommand(argv.slice(1));
  }
  // pi 1.6.0's `update --models` refreshes the model catalog: xcsh's `models update`.
  if (argv[0] === "update" && argv.includes("--models")) {
    const { runModelsCommand } = await import("./models-command.ts");
    return runModelsCommand(["update", ...argv.slice(1).filter((arg) => arg !== "--models")]);
  }
  // pi's package commands (`xcsh install npm:foo`), before anything takes the words as a prompt.
  if (argv[0] !== undefined && ["install", "remove", "uninstall", "update", "list"].includes(argv[0])) {
    const { runPackageCommand } = await import("../packages/commands.ts");
    return runPackageCommand(argv);
  }
  // `-e npm:foo`: the package is installed for this run and the arguments name its folders.
  if (argv.some((arg) => arg.startsWith("npm:") || arg.startsWith("git:") || arg.includes("://"))) {
    const { namesTemporaryPackage, resolveTemporaryPackages } = await import("../packages/temporary.ts");
    if (namesTemporaryPackage(argv)) {
      try {
        argv = await resolveTemporaryPackages(argv);
      } catch (error) {
        return reportFatal(`${(error as Error).message}`, 1);
      }
    }
  }
  // `-e <folder>` of a package: its skills and prompts load too, as in pi.
  if (argv.some((arg) => arg === "-e" || arg === "--extension")) {
    const { withLocalPackageResources } = await import("../packages/local-package-args.ts");
    argv = withLocalPackageResources(argv, process.cwd());
  }
  // AI_AGENT / PI_CODING_AGENT / XCSH_CODING_AGENT: every child process can tell it runs under xcsh.
  markAgentProcess();
  const missing = missingSubcommand(argv[0]);
  if (missing) return reportFatal(missing, 2);
  const parsed = parseArgs(argv);
  if (!parsed.ok) return reportFatal(parsed.error, 2);
  const args = parsed.args;
  // Unknown options may be flags an extension registers; only a run that loads extensions can tell.
  if (args.unknownOptions.length > 0 && (args.help || args.version)) {
    return reportFatal(`Unknown option ${args.unknownOptions[0]}. Run xcsh --help for usage.`, 2);
  }
  // The faux provider runs in this process and reads its script from the environment;
  // absolute, so a later change of directory cannot lose it.
  if (args.fauxScript) process.env.XCSH_FAUX_SCRIPT = resolve(args.fauxScript);

  if (args.help) {
    const { extensionFlagsHelp } = await import("./extension-flags-help.ts");
    await printToStdout(HELP_TEXT + (await extensionFlagsHelp(args, loadHostApi)));
    return 0;
  }
  if (args.version) {
    await printToStdout(versionText() + "\n");
    return 0;
  }
  if (args.listModels !== undefined) {
    const { listModels } = await import("./list-models.ts");
    // Extensions may register providers (an async factory can discover models): list those too.
    const { loadExtensionsForArgs } = await import("../modes/session-from-args.ts");
    const { headlessExtensionOptions } = await import("../modes/headless-extensions.ts");
    const loaded = await loadExtensionsForArgs(args, headlessExtensionOptions("print", loadHostApi));
    return listModels(args.listModels, loaded.registry);
  }
  if (args.exportSession !== undefined) {
    const { runExport } = await import("../export/export-session.ts");
    const { noteTrustWithoutAsking } = await import("../modes/session-from-args.ts");
    await noteTrustWithoutAsking(args.trustProject, process.cwd());
    return runExport(args.exportSession, args.messages[0], args.sessionDir);
  }
  if (args.mode === "rpc") {
    const { runRpcMode } = await import("../modes/rpc/rpc-mode.ts");
    return runRpcMode(args, loadHostApi);
  }
  if (args.mode === "acp") {
    // The ACP SDK (and zod with it) loads here only: other modes never pay for it.
    const { runAcpMode } = await import("../modes/acp/acp-mode.ts");
    return runAcpMode(args, loadHostApi);
  }
  // No -p on a terminal: the interactive session (its code and pi-tui load only here). As in pi,
  // --mode text picks text output but still means the session on a terminal; -p means one answer.
  if (!args.print && (args.mode === undefined || args.mode === "text") && process.stdin.isTTY && process.stdout.isTTY) {
    if (process.env.TERM === "dumb") {
      const { runPlainMode } = await import("../modes/interactive/plain-mode.ts");
      return runPlainMode(args, loadHostApi);
    }
    const { runInteractiveMode } = await import("../modes/interactive/interactive-mode.ts");
    return runInteractiveMode(args, loadHostApi);
  }
  const { runPrintMode } = await import("../modes/print/print-mode.ts");
  return runPrintMode(args, args.mode === "json" ? "json" : "text", loadHostApi);
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.exitCode = reportFatal(error, 1);
  },
);
