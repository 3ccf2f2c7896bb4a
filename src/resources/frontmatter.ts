/**
 * YAML frontmatter of markdown resources (skills, prompt templates, agent files):
 * a `---` line first, YAML, a closing `---` line, then the body. A file without
 * frontmatter is all body. Malformed YAML is an error, not an empty header.
 */

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const CLOSING = /^---[ \t]*$/m;

export interface ParsedFrontmatter<T extends Record<string, unknown>> {
  frontmatter: T;
  body: string;
}

function split(content: string): { yaml: string; body: string } | undefined {
  const opening = OPENING.exec(content);
  if (!opening) return undefined;
  const rest = content.slice(opening[0].length);
  const closing = CLOSING.exec(rest);
  if (!closing) return undefined;
  const afterClosing = rest.slice(closing.index + closing[0].length).replace(/^\r?\n/, "");
  return { yaml: rest.slice(0, closing.index), body: afterClosing };
}

export function parseFrontmatter<T extends Record<string, unknown> = Record<string, unknown>>(content: string): ParsedFrontmatter<T> {
  const parts = split(content);
  if (!parts) return { frontmatter: {} as T, body: content };
  let parsed: unknown;
  try {
    parsed = Bun.YAML.parse(parts.yaml);
  } catch (error) {
    throw new Error(`Invalid YAML frontmatter: ${(error as Error).message}`);
  }
  const frontmatter = parsed && typeof parsed === "object" && !Array.isArray(parsed) ? parsed : {};
  return { frontmatter: frontmatter as T, body: parts.body };
}

/** The body without its frontmatter. */
export function stripFrontmatter(content: string): string {
  return split(content)?.body ?? content;
}
