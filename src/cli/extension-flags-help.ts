/**
 * `--help` with extensions: as in pi, the flags extensions register (`pi.registerFlag`) are
 * listed after the built-in options, under "Extension CLI Flags:". The extensions are loaded
 * headless, as for --list-models, only when the command line names one with `-e` or the
 * user's extensions folder exists, so plain `xcsh --help` stays instant.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { getAgentDir } from "../config/paths.ts";
import type { RunOptions } from "../core/run-options.ts";

/** The section to append to the help text; empty when no extension adds a flag or none loads. */
export async function extensionFlagsHelp(args: RunOptions, hostApi: () => Promise<Record<string, unknown>>): Promise<string> {
  if (args.noExtensions && args.extensionPaths.length === 0) return "";
  if (args.extensionPaths.length === 0 && !existsSync(join(getAgentDir(), "extensions"))) return "";
  try {
    const { loadExtensionsForArgs } = await import("../modes/session-from-args.ts");
    const { headlessExtensionOptions } = await import("../modes/headless-extensions.ts");
    const loaded = await loadExtensionsForArgs(args, headlessExtensionOptions("print", hostApi));
    // In load order, as pi lists them.
    const flags = [...(loaded.system?.flagDefinitions() ?? [])];
    if (flags.length === 0) return "";
    const lines = flags.map(([name, options]) => {
      const usage = `--${name}${options.type === "string" ? " <value>" : ""}`;
      return `  ${usage.padEnd(28)}${options.description ?? ""}`.trimEnd();
    });
    return `\nExtension CLI Flags:\n${lines.join("\n")}\n`;
  } catch {
    // A broken extension is reported when it is run; help still prints.
    return "";
  }
}
