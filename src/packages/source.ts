/**
 * A package source as a person types it (pi's forms): `npm:name[@version]`,
 * `git:host/owner/repo[@ref]` (also `git:git@host:owner/repo`), a `https://`, `http://`,
 * `ssh://` or `git://` URL (a git repository), or a local path. Parsing is pure; the
 * identity (`npm:name`, `git:host/path`, the absolute local path) is what makes two
 * spellings one package, so it is declared and loaded once.
 */
import { resolve } from "node:path";
import { expandHome } from "../config/paths.ts";

export type PackageSource =
  | { type: "npm"; typed: string; name: string; version?: string }
  | { type: "git"; typed: string; repo: string; host: string; path: string; ref?: string }
  | { type: "local"; typed: string; path: string };

/** npm's rules for a package name, loosely: optional `@scope/`, then URL-safe characters. */
const NPM_NAME = /^(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const URL_PREFIX = /^(https?|ssh|git):\/\//i;

/** Parses a source; an error message says what was wrong and what forms are accepted. */
export function parseSource(typed: string, baseDir: string): PackageSource | { error: string } {
  const trimmed = typed.trim();
  if (trimmed === "") return { error: "an empty package source: give npm:<name>, git:<host>/<owner>/<repo> or a path" };
  if (trimmed.startsWith("npm:")) return parseNpm(trimmed);
  if (trimmed.startsWith("git:") || URL_PREFIX.test(trimmed)) return parseGit(trimmed);
  return { type: "local", typed: trimmed, path: resolve(baseDir, expandHome(trimmed)) };
}

function parseNpm(typed: string): PackageSource | { error: string } {
  const spec = typed.slice("npm:".length).trim();
  // The version follows the last "@" that is not the scope's leading one.
  const at = spec.lastIndexOf("@");
  const name = at > 0 ? spec.slice(0, at) : spec;
  const version = at > 0 ? spec.slice(at + 1) : undefined;
  if (!NPM_NAME.test(name)) return { error: `${typed}: "${name}" is not an npm package name (npm:<name>[@<version>], e.g. npm:@scope/tools@1.2.0)` };
  if (version !== undefined && version.trim() === "") return { error: `${typed}: the version after "@" is empty` };
  return { type: "npm", typed, name, ...(version !== undefined ? { version } : {}) };
}

function parseGit(typed: string): PackageSource | { error: string } {
  const body = typed.startsWith("git:") ? typed.slice(4).trim() : typed;
  const hint = `${typed}: not a git source (git:<host>/<owner>/<repo>[@<ref>], git:git@<host>:<owner>/<repo>, or an https:// URL)`;
  const scp = /^git@([^:/]+):(.+)$/.exec(body);
  if (scp) {
    const { rest, ref } = splitRef(scp[2]!);
    return gitSource(typed, `git@${scp[1]}:${rest}`, scp[1]!, rest, ref) ?? { error: hint };
  }
  if (URL_PREFIX.test(body)) {
    const { rest, ref } = splitRef(body);
    let url: URL;
    try {
      url = new URL(rest);
    } catch {
      return { error: hint };
    }
    return gitSource(typed, rest, url.hostname, url.pathname.replace(/^\/+/, ""), ref) ?? { error: hint };
  }
  const slash = body.indexOf("/");
  const host = slash > 0 ? body.slice(0, slash) : "";
  // A host has a dot (github.com) or is localhost, as pi requires, so `git:foo/bar` is refused.
  if (!host.includes(".") && host !== "localhost") return { error: hint };
  const { rest, ref } = splitRef(body.slice(slash + 1));
  return gitSource(typed, `https://${host}/${rest}`, host, rest, ref) ?? { error: hint };
}

/** `owner/repo@ref` → the ref after the last "@" of the path's last segment. */
function splitRef(value: string): { rest: string; ref?: string } {
  const lastSlash = value.lastIndexOf("/");
  const at = value.indexOf("@", lastSlash + 1);
  if (at < 0) return { rest: value };
  const ref = value.slice(at + 1);
  return ref === "" ? { rest: value.slice(0, at) } : { rest: value.slice(0, at), ref };
}

function gitSource(typed: string, repo: string, host: string, rawPath: string, ref: string | undefined): PackageSource | undefined {
  const path = rawPath.replace(/\.git$/, "").replace(/\/+$/, "");
  if (host === "" || path === "" || path.split("/").some((part) => part === ".." || part === ".")) return undefined;
  // A ref is handed to `git checkout`: one that starts with "-" would be read as an option.
  if (ref?.startsWith("-")) return undefined;
  return { type: "git", typed, repo, host, path, ...(ref !== undefined ? { ref } : {}) };
}

/** What makes two declarations the same package: npm name, git host and path, or the absolute local path. */
export function sourceIdentity(source: PackageSource): string {
  if (source.type === "npm") return `npm:${source.name}`;
  if (source.type === "git") return `git:${source.host}/${source.path}`;
  return source.path;
}

/** Whether an npm version or a git ref was given: pinned packages are not moved by `update`. */
export function isPinned(source: PackageSource): boolean {
  return source.type === "npm" ? source.version !== undefined : source.type === "git" ? source.ref !== undefined : false;
}
