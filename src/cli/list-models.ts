/** `xcsh --list-models [search]`: the models xcsh knows, as a table on stdout. */
import type { Model } from "../ai/types.ts";
import { ModelRegistry } from "../config/model-registry.ts";

function formatTokens(count: number): string {
  if (count >= 1_000_000) return `${+(count / 1_000_000).toFixed(1)}M`;
  if (count >= 1_000) return `${+(count / 1_000).toFixed(1)}K`;
  return String(count);
}

function matches(model: Model, search: string): boolean {
  const haystack = `${model.provider}/${model.id} ${model.name}`.toLowerCase();
  return search
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

/** Lists the models of `registry` (with extensions' providers, when any loaded), else of models.json and the catalog. */
export function listModels(search: string, registry: ModelRegistry = ModelRegistry.load()): number {
  const models = registry.getAll().filter((model) => matches(model, search));
  if (models.length === 0) {
    process.stderr.write(search ? `xcsh: no model matches "${search}"\n` : "xcsh: no models are configured\n");
    return 1;
  }
  const header = ["provider", "model", "context", "max-out", "thinking", "images", "key"];
  const rows = models.map((model) => [
    model.provider,
    model.id,
    formatTokens(model.contextWindow),
    formatTokens(model.maxTokens),
    model.reasoning ? "yes" : "no",
    model.input.includes("image") ? "yes" : "no",
    registry.hasAuth(model) ? "yes" : "no",
  ]);
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  const line = (cells: string[]) => cells.map((cell, column) => cell.padEnd(widths[column])).join("  ").trimEnd();
  process.stdout.write([line(header), ...rows.map(line)].join("\n") + "\n");
  return 0;
}
