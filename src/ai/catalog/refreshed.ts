/**
 * The refreshed catalog: the copy `xcsh models update` writes into the agent dir
 * (models-catalog.json) from models.dev. When present and valid it overrides the
 * built-in rows it names (name, limits, prices, flags; the built-in quirks stay) and
 * adds the models the built-in catalog lacks. It is read once, on the first model
 * look-up, never at start-up; a file that does not validate is ignored with one line on
 * stderr, and the built-in catalog serves alone.
 *
 * The config layer says where the file is (setRefreshedCatalogPath): ai/ knows no paths.
 */
import { readFileSync } from "node:fs";
import type { CatalogModel } from "./model-types.ts";

export const REFRESHED_CATALOG_FILE = "models-catalog.json";
export const REFRESHED_CATALOG_VERSION = 1;

export interface RefreshedCatalog {
  version: typeof REFRESHED_CATALOG_VERSION;
  /** Where it was fetched from (a URL). */
  source: string;
  /** When, as an ISO date-time. */
  fetchedAt: string;
  /** Catalog provider id → its models as the source lists them. */
  providers: Record<string, CatalogModel[]>;
}

let path: string | undefined;
let cached: { path: string; catalog: RefreshedCatalog | undefined } | undefined;
const listeners: (() => void)[] = [];

/** Where the refreshed catalog lives (undefined: none is used). Forgets what was read from an earlier path. */
export function setRefreshedCatalogPath(next: string | undefined): void {
  if (next === path) return;
  path = next;
  cached = undefined;
  for (const listener of listeners) listener();
}

/** Called when the path changes, so a cache of merged models can be dropped. */
export function onRefreshedCatalogChange(listener: () => void): void {
  listeners.push(listener);
}

export function refreshedCatalogPath(): string | undefined {
  return path;
}

const isNumber = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0;
const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Why a row is not a catalog model, or undefined when it is one. */
function rowProblem(row: unknown): string | undefined {
  if (!isObject(row)) return "is not an object";
  if (typeof row.id !== "string" || row.id === "") return "has no id";
  if (typeof row.name !== "string") return `${row.id}: name is not a string`;
  if (typeof row.reasoning !== "boolean") return `${row.id}: reasoning is not true or false`;
  if (!Array.isArray(row.input) || !row.input.every((kind) => kind === "text" || kind === "image")) return `${row.id}: input is not a list of "text"/"image"`;
  if (!isObject(row.cost) || !["input", "output", "cacheRead", "cacheWrite"].every((key) => isNumber((row.cost as Record<string, unknown>)[key]))) return `${row.id}: cost needs four prices`;
  if (!isNumber(row.contextWindow) || row.contextWindow === 0) return `${row.id}: contextWindow is not a positive number`;
  if (!isNumber(row.maxTokens) || row.maxTokens === 0) return `${row.id}: maxTokens is not a positive number`;
  if (row.api !== undefined && typeof row.api !== "string") return `${row.id}: api is not a string`;
  if (row.baseUrl !== undefined && typeof row.baseUrl !== "string") return `${row.id}: baseUrl is not a string`;
  return undefined;
}

/** The value as a refreshed catalog, or why it is not one. */
export function checkRefreshedCatalog(value: unknown): { catalog: RefreshedCatalog } | { error: string } {
  if (!isObject(value)) return { error: "it is not a JSON object" };
  if (value.version !== REFRESHED_CATALOG_VERSION) return { error: `version is ${JSON.stringify(value.version)}, not ${REFRESHED_CATALOG_VERSION}` };
  if (typeof value.source !== "string") return { error: "source is not a string" };
  if (typeof value.fetchedAt !== "string" || Number.isNaN(Date.parse(value.fetchedAt))) return { error: "fetchedAt is not a date" };
  if (!isObject(value.providers)) return { error: "providers is not an object" };
  for (const [provider, rows] of Object.entries(value.providers)) {
    if (!Array.isArray(rows)) return { error: `providers.${provider} is not a list` };
    for (const row of rows) {
      const problem = rowProblem(row);
      if (problem) return { error: `providers.${provider}: a model ${problem}` };
    }
  }
  return { catalog: value as unknown as RefreshedCatalog };
}

/** The refreshed catalog at the configured path, read and checked once; undefined when absent or invalid. */
export function readRefreshedCatalog(): RefreshedCatalog | undefined {
  if (path === undefined) return undefined;
  if (cached?.path === path) return cached.catalog;
  let catalog: RefreshedCatalog | undefined;
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    // No file: the built-in catalog alone.
  }
  if (text !== undefined) {
    let parsed: unknown;
    let problem: string | undefined;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      problem = `it is not JSON (${(error as Error).message})`;
    }
    if (problem === undefined) {
      const checked = checkRefreshedCatalog(parsed);
      if ("error" in checked) problem = checked.error;
      else catalog = checked.catalog;
    }
    if (problem) process.stderr.write(`xcsh: ignoring ${path}: ${problem}. Run \`xcsh models update\` to fetch it again.\n`);
  }
  cached = { path, catalog };
  return catalog;
}
