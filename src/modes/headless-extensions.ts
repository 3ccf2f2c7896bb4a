/**
 * What extensions get where no one can answer a dialog (`-p`, `--mode json`,
 * `--list-models`): dialogs resolve to their defaults at once, notices go to
 * stderr, and ctx.shutdown() is a no-op (the run ends by itself).
 */
import type { ExtensionErrorReport } from "../extensions/runner.ts";
import { createHeadlessUI } from "../extensions/ui-headless.ts";
import type { ModeExtensionOptions } from "./session-from-args.ts";

export function describeExtensionError(report: ExtensionErrorReport): string {
  return `xcsh: extension ${report.extensionPath} failed (${report.event}): ${report.error}\n`;
}

export function headlessExtensionOptions(
  mode: "print" | "json",
  hostApi: ModeExtensionOptions["hostApi"],
  reportError: (report: ExtensionErrorReport) => void = (report) => process.stderr.write(describeExtensionError(report)),
): ModeExtensionOptions {
  const notice = (line: string) => process.stderr.write(`${line}\n`);
  return {
    mode,
    ui: createHeadlessUI({ notice }),
    hostApi,
    reportError,
    notice,
    onShutdownRequested: () => {},
  };
}
