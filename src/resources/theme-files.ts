/**
 * Theme files from their places (resource-places.ts `themePlaces`): every `*.json` at
 * the top of a themes folder, or a file named directly. Each is checked and resolved
 * (theme-json.ts); the first theme of a name wins and a later one is reported, as for
 * skills and templates. The built-in names ("dark", "light") are taken. Nothing here
 * throws: a file that cannot be used becomes one warning naming the file and what is
 * wrong with it (the token, for a bad colour), and is remembered by the name it gives
 * itself, so that choosing it can say why it is not drawn.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../config/errors.ts";
import { readJsonFile } from "../config/json-file.ts";
import { describeOther, kindOf, listFolder } from "./markdown-file.ts";
import type { ResourcePlace } from "./resource-places.ts";
import { loadFirstByName } from "./resource-reader.ts";
import { themeFromJson, themeNameOf, type ThemeDefinition } from "./theme-json.ts";

export interface ThemeFile extends ThemeDefinition {
  path: string;
  /** loadFirstByName's name for the path. */
  filePath: string;
  place: ResourcePlace;
}

export interface LoadedThemeFiles {
  themes: ThemeFile[];
  /** One line per file that is not used, for the person running xcsh. */
  warnings: string[];
  /** Files that name a theme but cannot be used, by that name: why, and their line in warnings. */
  broken: Map<string, { file: string; reason: string; warning: string }>;
}

/** A theme file is a screenful of colours; anything this large is something else. */
const MAX_THEME_BYTES = 256 * 1024;

function filesOf(place: ResourcePlace, warnings: string[]): string[] {
  const kind = kindOf(place.path);
  if (kind === "file") return [place.path];
  if (kind === "folder") {
    return listFolder(place.path)
      .filter((entry) => !entry.name.startsWith(".") && entry.name.toLowerCase().endsWith(".json"))
      .map((entry) => join(place.path, entry.name))
      .filter((path) => kindOf(path) === "file");
  }
  if (kind === "other") warnings.push(`theme path ${place.path} is not loaded: ${describeOther(kind)}`);
  else if (place.explicit) warnings.push(`theme path ${place.path} does not exist`);
  return [];
}

/** The parsed JSON of a theme file, or why it cannot be read. */
function readThemeJson(path: string): { ok: true; json: unknown } | { ok: false; reason: string } {
  try {
    if (statSync(path).size > MAX_THEME_BYTES) return { ok: false, reason: `it is larger than ${MAX_THEME_BYTES / 1024} KiB` };
    return { ok: true, json: readJsonFile(path, "") ?? {} };
  } catch (error) {
    const reason = error instanceof ConfigError ? error.problems.join("; ") : (error as Error).message;
    return { ok: false, reason };
  }
}

/** `builtinNames`: names a file may not take (the built-in themes'). */
export function loadThemeFiles(places: ResourcePlace[], builtinNames: readonly string[] = []): LoadedThemeFiles {
  const broken: LoadedThemeFiles["broken"] = new Map();
  const { items, warnings } = loadFirstByName<ThemeFile>(places, {
    filesOf,
    describe: (theme) => `theme "${theme.name}"`,
    parse(file, place, warnings) {
      const read = readThemeJson(file);
      const problem = (reason: string, json?: unknown) => {
        const warning = `theme file ${file} is not used: ${reason}`;
        warnings.push(warning);
        const name = themeNameOf(json);
        if (name && !broken.has(name)) broken.set(name, { file, reason, warning });
        return undefined;
      };
      if (!read.ok) return problem(read.reason);
      let definition: ThemeDefinition;
      try {
        definition = themeFromJson(read.json, file);
      } catch (error) {
        return problem((error as Error).message, read.json);
      }
      if (builtinNames.includes(definition.name)) {
        warnings.push(`theme "${definition.name}" at ${file} is ignored: "${definition.name}" is a built-in theme; give the file another name`);
        return undefined;
      }
      return { ...definition, path: file, filePath: file, place };
    },
  });
  // A name that a good file provides is not broken, whichever came first.
  for (const theme of items) broken.delete(theme.name);
  return { themes: items, warnings, broken };
}
