/**
 * What the shell looks up in the loaded extensions, always in the current
 * runner (so /reload takes effect at once): the shortcut a key runs, a tool's
 * renderCall/renderResult, the renderer of a custom message type, and the
 * slash commands offered for completion — with an extension command's
 * getArgumentCompletions, whose failures complete nothing rather than crash.
 */
import type { AutocompleteItem, SlashCommand } from "@earendil-works/pi-tui";
import type { ExtensionSystem } from "../../core/extension-system.ts";
import { loadPiTui } from "../../extensions/tui-helpers.ts";
import type { MarkdownTransformContext } from "../../extensions/runner.ts";
import type { ToolRenderers } from "./tool-lines.ts";

/** Runs the extension shortcut bound to the key `data`, if any; true when one took it. */
export function runShortcut(extensions: ExtensionSystem | undefined, data: string): boolean {
  const runner = extensions?.currentRunner;
  if (!runner) return false;
  const { matchesKey } = loadPiTui();
  for (const extension of runner.extensions) {
    for (const [key, options] of extension.shortcuts) {
      if (!matchesKey(data, key as Parameters<typeof matchesKey>[1])) continue;
      const context = runner.boundContext;
      Promise.resolve()
        .then(() => options.handler(context as never))
        .catch((error) => runner.report(extension.path, `shortcut:${key}`, error));
      return true;
    }
  }
  return false;
}

/**
 * How calls to tool `name` are drawn: the registerToolRenderer resolvers in load order, each
 * able to defer with `next()`, then the registered tool's own renderCall/renderResult. A
 * resolver that throws is reported and skipped.
 */
export function toolRenderers(extensions: ExtensionSystem | undefined, name: string): ToolRenderers | undefined {
  const runner = extensions?.currentRunner;
  const loaded = runner?.extensions ?? [];
  const registered = (): ToolRenderers | undefined => {
    for (const extension of loaded) {
      const tool = extension.tools.get(name);
      if (tool && (tool.renderCall || tool.renderResult)) return { renderCall: tool.renderCall, renderResult: tool.renderResult };
    }
    return undefined;
  };
  const resolvers = loaded.flatMap((extension) => extension.toolRendererResolvers.map((resolve) => ({ extension, resolve })));
  const resolveFrom = (index: number): ToolRenderers | undefined => {
    if (index >= resolvers.length) return registered();
    const { extension, resolve } = resolvers[index]!;
    try {
      const chosen = resolve(name, () => resolveFrom(index + 1));
      if (chosen === undefined || chosen === null) return undefined;
      const { renderCall, renderResult } = chosen as ToolRenderers;
      return typeof renderCall === "function" || typeof renderResult === "function" ? { renderCall, renderResult } : undefined;
    } catch (error) {
      runner!.report(extension.path, `toolRenderer:${name}`, error);
      return resolveFrom(index + 1);
    }
  };
  return resolveFrom(0);
}

/**
 * Markdown after the extensions' transformers (registerMarkdownTransformer), in load order,
 * for the surfaces each asked for. A transformer that throws or returns no string is
 * reported and skipped; the text so far goes on to the next.
 */
export function transformMarkdown(extensions: ExtensionSystem | undefined, markdown: string, context: MarkdownTransformContext): string {
  const runner = extensions?.currentRunner;
  let text = markdown;
  for (const extension of runner?.extensions ?? []) {
    const transformer = extension.markdownTransformer;
    if (!transformer || !transformer.messageTypes.includes(context.messageType)) continue;
    try {
      const next = transformer.transform(text, { ...context });
      if (typeof next === "string") text = next;
      else throw new Error(`the Markdown transformer returned ${next === null ? "null" : typeof next}, not a string`);
    } catch (error) {
      runner!.report(extension.path, "markdownTransformer", error);
    }
  }
  return text;
}

export function entryRenderer(extensions: ExtensionSystem | undefined, customType: string): ((...args: any[]) => unknown) | undefined {
  for (const extension of extensions?.currentRunner.extensions ?? []) {
    const renderer = extension.entryRenderers.get(customType);
    if (renderer) return renderer;
  }
  return undefined;
}

export function messageRenderer(extensions: ExtensionSystem | undefined, customType: string): ((...args: any[]) => unknown) | undefined {
  for (const extension of extensions?.currentRunner.extensions ?? []) {
    const renderer = extension.messageRenderers.get(customType);
    if (renderer) return renderer;
  }
  return undefined;
}

function asItems(value: unknown): AutocompleteItem[] | null {
  if (!Array.isArray(value)) return null;
  const items = value.filter((item): item is AutocompleteItem => typeof item?.value === "string").map((item) => ({ ...item, label: typeof item.label === "string" ? item.label : item.value }));
  return items.length > 0 ? items : null;
}

/**
 * The extension commands (and templates, skills) to complete after `/`. An
 * extension command with getArgumentCompletions completes its arguments after
 * `/name `; the command is looked up when asked, so a reloaded extension answers.
 */
export function extensionSlashCommands(extensions: ExtensionSystem | undefined, others: readonly { name: string; description?: string }[]): SlashCommand[] {
  const runner = extensions?.currentRunner;
  const completing = new Set(runner?.commands().filter((resolved) => resolved.command.getArgumentCompletions).map((resolved) => resolved.invocation));
  return others.map((entry) => {
    const command: SlashCommand = { name: entry.name, description: entry.description };
    if (completing.has(entry.name)) {
      command.getArgumentCompletions = async (prefix: string) => {
        const current = extensions?.currentRunner.commands().find((resolved) => resolved.invocation === entry.name);
        if (!current?.command.getArgumentCompletions) return null;
        try {
          return asItems(await current.command.getArgumentCompletions(prefix));
        } catch (error) {
          extensions!.currentRunner.report(current.extension.path, `command:${entry.name}:completions`, error);
          return null;
        }
      };
    }
    return command;
  });
}
