/**
 * Rewrites the import specifiers of one ES module so that the loader of the
 * compiled binary, which cannot resolve packages itself, never has to:
 * `import … from "pkg"`, `export … from "./x"` and `import("literal")` each
 * become the URL the caller chooses (an absolute path). es-module-lexer finds
 * the specifiers, so text in strings and comments is never touched, and only the
 * specifiers change: line numbers in stack traces stay the file's own. The
 * literal of `import.meta.resolve("…")` is rewritten to the plain path too, and
 * a specifier computed at run time (`import(name)`) is wrapped in a call that
 * resolves its value when the import runs.
 *
 * A file whose every import names a module that is not on disk (xcsh's host
 * modules, builtins) is returned as it is without loading the lexer — the
 * common case for small extensions, and what keeps their load cost flat.
 */
import type { Import } from "es-module-lexer";
import { lex, type Lexed } from "./module-source.ts";

/**
 * Every string that follows `from`, `import` or `resolve` (with an optional
 * `(`): a superset of the specifiers, good enough to tell when lexing is needed.
 */
const SPECIFIER_CANDIDATES = /\b(?:from|import|resolve)\s*\(?\s*(["'`])([^"'`\r\n]*)\1/g;

/** What `needsRewriting` asks: which specifiers never resolve on disk. */
export interface SpecifierKinds {
  /** True for specifiers that never resolve on disk (host modules, builtins): no reason to lex for them. */
  staysAsWritten(specifier: string): boolean;
}

export interface RewriteOptions extends SpecifierKinds {
  /** The URL to import instead of `specifier`, or undefined to leave it. */
  targetUrl(specifier: string): string | undefined;
  /** The path `import.meta.resolve(specifier)` should answer, or undefined to leave it. */
  targetPath(specifier: string): string | undefined;
  /** Code that computes, when it runs, the URL to import for the value of `expression` (`import(name)`). */
  computedTarget(expression: string): string;
}

/** `import(` followed by anything but a quote: a specifier computed at run time. */
const COMPUTED_IMPORT = /\bimport\s*\(\s*[^\s"'`)]/;

/**
 * False when no import in `text` can need rewriting (it imports only host
 * modules and builtins, or nothing): such a file loads as Bun reads it.
 */
export function needsRewriting(text: string, options: SpecifierKinds): boolean {
  if (COMPUTED_IMPORT.test(text)) return true;
  for (const match of text.matchAll(SPECIFIER_CANDIDATES)) {
    if (!options.staysAsWritten(match[2]!)) return true;
  }
  return false;
}

/** `import.meta` followed by `.resolve("literal")`: the literal's span, quotes included. */
const META_RESOLVE = /^\s*\.\s*resolve\s*\(\s*(["'])([^"'\\\r\n]+)\1/;

function metaResolveCall(text: string, record: Import): { specifier: string; start: number; end: number } | undefined {
  const match = META_RESOLVE.exec(text.slice(record.end, record.end + 512));
  if (!match) return undefined;
  const end = record.end + match[0].length;
  return { specifier: match[2]!, start: end - match[2]!.length - 2, end };
}

/** A specifier that is a runtime edge with a literal value; type-only imports vanish at transpile time. */
function literalSpecifier(record: Import): string | undefined {
  if (record.type === "import-meta") return undefined;
  if (record.type === "dynamic") {
    return record.glob || record.probablyTypeOnly || record.phase !== null ? undefined : record.specifier;
  }
  return record.typeOnly || record.phase === "source" ? undefined : record.specifier;
}

/** An `import(expression)` whose value is known only when it runs (a template with `${…}` included). */
function isComputedImport(record: Import): boolean {
  return record.type === "dynamic" && (record.specifier === undefined || record.glob) && !record.probablyTypeOnly && record.phase === null && record.end > record.start;
}

/** The span to replace: a static import's positions exclude the quotes, a dynamic import's include them. */
function literalSpan(record: Import): [start: number, end: number] {
  return record.type === "dynamic" ? [record.start, record.end] : [record.start - 1, record.end + 1];
}

/** `text` with its specifiers rewritten; `lexed` is the same text already lexed, when it was. */
export function rewriteImports(text: string, options: RewriteOptions, lexed?: Lexed): string {
  if (!needsRewriting(text, options)) return text;
  const { imports } = lexed ?? lex(text);
  if (!imports) return text;
  const replacements: { start: number; end: number; code: string }[] = [];
  for (const record of imports) {
    if (record.type === "import-meta") {
      const call = metaResolveCall(text, record);
      const path = call && options.targetPath(call.specifier);
      if (call && path !== undefined) replacements.push({ start: call.start, end: call.end, code: JSON.stringify(path) });
      continue;
    }
    if (isComputedImport(record)) {
      replacements.push({ start: record.start, end: record.end, code: options.computedTarget(text.slice(record.start, record.end)) });
      continue;
    }
    const specifier = literalSpecifier(record);
    if (specifier === undefined) continue;
    const url = options.targetUrl(specifier);
    if (url === undefined) continue;
    const [start, end] = literalSpan(record);
    replacements.push({ start, end, code: JSON.stringify(url) });
  }
  let rewritten = "";
  let position = 0;
  for (const { start, end, code } of replacements.sort((a, b) => a.start - b.start)) {
    rewritten += text.slice(position, start) + code;
    position = end;
  }
  return rewritten + text.slice(position);
}
