/**
 * An extension's module files as resolution sees them: their text, what
 * es-module-lexer finds in it (every import's specifier and position), and
 * whether Bun will run them as ES modules or as CommonJS.
 *
 * The lexer (es-module-lexer's Wasm build) is loaded the first time a file
 * needs lexing — never at start-up, and not for extensions that import only
 * xcsh's own modules. It is used without `init()`: its `parse` then compiles
 * the Wasm synchronously, as it must, since a module that `require()` loads has
 * to load without waiting (Bun refuses one whose onLoad returned a promise).
 * Wasm, not the asm.js build: published extensions pull in megabytes of
 * dependencies, which the asm.js build lexed 3–4 times slower (measured on
 * pi-mcp-adapter, pi-subagents, pi-mermaid). A file lexed to learn its format
 * is kept until its own load asks for it, so no file is lexed twice.
 */
import { readFileSync } from "node:fs";
import { dirname, extname } from "node:path";
import type { Import } from "es-module-lexer";
import { traceModuleLoad } from "../../ai/load-trace.ts";
import { packageScopeOf, readPackageJson } from "./file-system.ts";

export interface Lexed {
  /** Null when the lexer rejects the text: Bun's own parse will report the syntax error. */
  imports: readonly Import[] | null;
  hasModuleSyntax: boolean;
}

export interface SourceFile {
  text: string;
  lexed?: Lexed;
}

type Lexer = typeof import("es-module-lexer");
let lexer: Lexer | undefined;

export function lex(text: string): Lexed {
  if (!lexer) {
    lexer = require("es-module-lexer") as Lexer;
    traceModuleLoad("es-module-lexer");
  }
  try {
    const [imports, , , hasModuleSyntax] = lexer.parse(text);
    return { imports, hasModuleSyntax };
  } catch {
    return { imports: null, hasModuleSyntax: false };
  }
}

const sources = new Map<string, SourceFile>();

/** The file's text, kept for its load through onLoad (takeSource) or until `dropSource`. */
export function readSource(path: string): SourceFile {
  let source = sources.get(path);
  if (!source) {
    source = { text: readFileSync(path, "utf8") };
    sources.set(path, source);
  }
  return source;
}

/** The file for its load, which happens once: the cache lets go of it. */
export function takeSource(path: string): SourceFile {
  const source = sources.get(path);
  sources.delete(path);
  return source ?? { text: readFileSync(path, "utf8") };
}

/** For a file Bun will read itself (loaded without the mark). */
export function dropSource(path: string): void {
  sources.delete(path);
}

export function forgetSources(): void {
  sources.clear();
}

/** What a file's name and its package's `type` say about its format; "ambiguous" needs a look inside. */
type FormatByName = "esm" | "commonjs" | "ambiguous" | "not-javascript";

function formatByName(path: string): FormatByName {
  switch (extname(path)) {
    case ".mjs":
    case ".mts":
      return "esm";
    case ".cjs":
    case ".cts":
      return "commonjs";
    case ".js":
    case ".jsx":
    case ".ts":
    case ".tsx": {
      const scope = packageScopeOf(dirname(path));
      // `"type": "module"` is a promise; without it Bun goes by the file's syntax, and so do we.
      return scope && readPackageJson(scope)?.type === "module" ? "esm" : "ambiguous";
    }
    default:
      return "not-javascript";
  }
}

/**
 * Text that may be CommonJS. Without any of these, a file is safe to run as an
 * ES module whatever else it holds, and needs no lexing to say so.
 */
const COMMONJS_HINTS = /\bmodule\.exports\b|\bexports\s*[.[]|\brequire\s*\(/;
/** Without either word there is no module syntax: CommonJS, no lexing needed either. */
const MODULE_KEYWORDS = /\b(?:import|export)\b/;

/** Whether Bun runs the file as an ES module (lexing it only when a glance at its text cannot tell). */
export function isEsModule(path: string): boolean {
  const byName = formatByName(path);
  if (byName !== "ambiguous") return byName === "esm";
  const source = readSource(path);
  if (!COMMONJS_HINTS.test(source.text)) return true;
  source.lexed ??= MODULE_KEYWORDS.test(source.text) ? lex(source.text) : { imports: [], hasModuleSyntax: false };
  // Only ES modules come back through onLoad to take their text; Bun reads CommonJS itself.
  if (!source.lexed.hasModuleSyntax) sources.delete(path);
  return source.lexed.hasModuleSyntax;
}
