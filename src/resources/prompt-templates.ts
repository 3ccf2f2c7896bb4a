/**
 * Prompt templates (reference prompt-templates.md): `.md` files whose name
 * without `.md` is the command (`review.md` → `/review`). Folders are read one
 * level deep only. The optional frontmatter gives `description` (else the first
 * non-empty line serves) and `argument-hint`. The first template of a name wins;
 * later ones are reported. Nothing here throws or writes: problems come back as
 * warnings.
 */
import { basename, join } from "node:path";
import { describeOther, kindOf, listFolder, readMarkdown } from "./markdown-file.ts";
import type { ResourceLocation, ResourcePlace } from "./resource-places.ts";
import { loadFirstByName } from "./resource-reader.ts";

export interface PromptTemplate {
  name: string;
  description: string;
  argumentHint?: string;
  /** The text that replaces `/name args`, before argument substitution. */
  content: string;
  filePath: string;
  location: ResourceLocation;
  place: ResourcePlace;
}

export interface LoadedTemplates {
  templates: PromptTemplate[];
  warnings: string[];
}

const MAX_DESCRIPTION = 200;

/** The command a file gives: its name without `.md`. */
const commandNameOf = (fileName: string) => fileName.replace(/\.md$/i, "");

function firstLine(body: string): string {
  const line = body.split(/\r?\n/).find((candidate) => candidate.trim() !== "")?.trim() ?? "";
  return line.length > MAX_DESCRIPTION ? `${line.slice(0, MAX_DESCRIPTION - 1)}…` : line;
}

function parseTemplate(filePath: string, place: ResourcePlace, warnings: string[]): PromptTemplate | undefined {
  const name = commandNameOf(basename(filePath));
  // A name with blanks cannot be typed as /name; `skill:` belongs to skills. One with control
  // characters cannot be typed either, and drawn in the command list it would reach the terminal.
  if (name === "" || /[\s\x00-\x1f\x7f-\x9f]/.test(name) || name.startsWith("skill:")) {
    warnings.push(`prompt template ${filePath} is not loaded: "${name}" cannot be used as a command name`);
    return undefined;
  }
  const read = readMarkdown(filePath, place.confine);
  if (!read.ok) {
    warnings.push(`prompt template ${filePath} is not loaded: ${read.reason}`);
    return undefined;
  }
  const { frontmatter, body } = read;
  const description = typeof frontmatter.description === "string" && frontmatter.description.trim() ? frontmatter.description.trim() : firstLine(body);
  const hint = frontmatter["argument-hint"];
  return {
    name,
    description,
    ...(typeof hint === "string" && hint.trim() ? { argumentHint: hint.trim() } : {}),
    content: body,
    filePath,
    location: place.location,
    place,
  };
}

/**
 * A folder's templates in the order of their command names, so `/implement` comes before
 * `/implement-and-review` (file names would put `-` before `.md`). pi lists them in the
 * order the file system returns, which differs between machines; this order does not.
 */
function byCommandName(a: { name: string }, b: { name: string }): number {
  const [first, second] = [commandNameOf(a.name), commandNameOf(b.name)];
  if (first !== second) return first < second ? -1 : 1;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

function filesOf(place: ResourcePlace, warnings: string[]): string[] {
  const kind = kindOf(place.path);
  if (kind === "file") return [place.path];
  if (kind === "folder") {
    return listFolder(place.path)
      .filter((entry) => !entry.name.startsWith(".") && entry.name.toLowerCase().endsWith(".md"))
      .sort(byCommandName)
      .map((entry) => join(place.path, entry.name))
      .filter((path) => {
        const entryKind = kindOf(path);
        if (entryKind === "folder" || entryKind === "other") warnings.push(`prompt template ${path} is not loaded: ${describeOther(entryKind)}`);
        return entryKind === "file";
      });
  }
  if (kind === "other") warnings.push(`prompt template path ${place.path} is not loaded: ${describeOther(kind)}`);
  else if (place.explicit) warnings.push(`prompt template path ${place.path} does not exist`);
  return [];
}

export function loadPromptTemplates(places: ResourcePlace[]): LoadedTemplates {
  const { items, warnings } = loadFirstByName(places, { filesOf, parse: parseTemplate, describe: (template) => `prompt template "/${template.name}"` });
  return { templates: items, warnings };
}
