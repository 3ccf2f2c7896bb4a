/**
 * The `packages` list of one settings file, in pi's format: each entry a source string,
 * or `{ "source": …, "extensions"?: [...], "skills"?: [...], "prompts"?: [...], "themes"?: [...] }`
 * whose lists narrow what the package contributes. Reading tolerates entries it cannot
 * use (they are reported, not fatal); writing replaces only `packages` and keeps every
 * other key, through a temp file and a rename so a crash leaves the old file or the new.
 */
import { ConfigError } from "../config/errors.ts";
import { readJsonFile, writeJsonFile } from "../config/json-file.ts";
import { parseSource, sourceIdentity, type PackageSource } from "./source.ts";

export const RESOURCE_KINDS = ["extensions", "skills", "prompts", "themes"] as const;
export type ResourceKind = (typeof RESOURCE_KINDS)[number];

export interface PackageDeclaration {
  /** The entry as written (string or object), so a rewrite keeps it unchanged. */
  raw: unknown;
  source: PackageSource;
  /** Per-kind filters of the object form; absent kinds load everything the package offers. */
  filters: Partial<Record<ResourceKind, string[]>>;
}

export interface DeclarationList {
  declarations: PackageDeclaration[];
  /** Entries that could not be used, each with why (the caller names the file). */
  problems: string[];
}

/** The settings file as a plain object (missing → `{}`); throws ConfigError when it is not JSON or not an object. */
export function readSettingsObject(file: string): Record<string, unknown> {
  const content = readJsonFile(file);
  if (content === undefined) return {};
  if (typeof content !== "object" || content === null || Array.isArray(content)) {
    throw new ConfigError(file, "expected a JSON object at the top level");
  }
  return content as Record<string, unknown>;
}

/** The declarations of a settings object's `packages` list; relative local paths are taken from `baseDir`. */
export function declarationsOf(settings: Record<string, unknown>, baseDir: string): DeclarationList {
  const list = settings.packages;
  const result: DeclarationList = { declarations: [], problems: [] };
  if (list === undefined) return result;
  if (!Array.isArray(list)) {
    result.problems.push(`"packages" must be a list of sources`);
    return result;
  }
  for (const raw of list) {
    const typed = typeof raw === "string" ? raw : isRecord(raw) && typeof raw.source === "string" ? raw.source : undefined;
    if (typed === undefined) {
      result.problems.push(`a "packages" entry must be a source string or {"source": "…"}; found ${JSON.stringify(raw)}`);
      continue;
    }
    const source = parseSource(typed, baseDir);
    if ("error" in source) {
      result.problems.push(source.error);
      continue;
    }
    result.declarations.push({ raw, source, filters: isRecord(raw) ? filtersOf(raw) : {} });
  }
  return result;
}

function filtersOf(entry: Record<string, unknown>): PackageDeclaration["filters"] {
  const filters: PackageDeclaration["filters"] = {};
  for (const kind of RESOURCE_KINDS) {
    const value = entry[kind];
    if (Array.isArray(value)) filters[kind] = value.filter((item): item is string => typeof item === "string");
  }
  return filters;
}

/** The index of the declaration of the same package (by identity), or -1. */
export function findDeclaration(list: DeclarationList, source: PackageSource): number {
  const identity = sourceIdentity(source);
  return list.declarations.findIndex((declaration) => sourceIdentity(declaration.source) === identity);
}

/** Writes `packages` into the settings file, keeping its other keys. */
export function writePackages(file: string, settings: Record<string, unknown>, packages: unknown[]): void {
  writeJsonFile(file, { ...settings, packages });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
