/**
 * The hosts a sandbox.network list allows (`["example.com", "*.npmjs.org",
 * "127.0.0.1:8080", "[::1]:3000"]`): parsing each entry once, when the policy is
 * resolved, and matching a destination the filtering proxy is asked for. Pure.
 *
 *  - `example.com` matches that name only (not `www.example.com`);
 *  - `*.example.com` matches every name below it (`a.example.com`, `a.b.example.com`),
 *    not `example.com` itself — list both for both;
 *  - `:port` limits an entry to that port; without one, every port of the host.
 * Names compare case-insensitively, a trailing dot ignored. An IP address matches
 * only when the program asks for that address: the proxy compares names as asked,
 * before resolving them, so `localhost` and `127.0.0.1` are different entries.
 */

export interface HostPattern {
  /** Lower case, no trailing dot, IPv6 without brackets; for a wildcard, the part after `*.`. */
  host: string;
  /** `*.host`: any name below `host`. */
  wildcard: boolean;
  /** Only this port; any port when absent. */
  port?: number;
  /** The entry as written, for messages. */
  text: string;
}

const LABEL = /^[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;
const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;
const IPV6 = /^[0-9a-f:.]+$/;

/** Lower case, no trailing dot, no IPv6 brackets. */
export function normalizeHost(host: string): string {
  let name = host.trim().toLowerCase();
  if (name.startsWith("[") && name.endsWith("]")) name = name.slice(1, -1);
  return name.endsWith(".") ? name.slice(0, -1) : name;
}

/** A host name or IP address as a list entry may name one (lower case, no brackets). */
export function isHostName(host: string): boolean {
  if (IPV4.test(host)) return host.split(".").every((part) => Number(part) <= 255);
  if (host.includes(":")) return IPV6.test(host);
  return host.length > 0 && host.length <= 253 && host.split(".").every((label) => LABEL.test(label));
}

function parsePort(text: string): number | undefined {
  if (!/^\d{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : undefined;
}

/**
 * One list entry; throws an Error naming the entry and what is wrong with it
 * (a URL, a path, a wildcard elsewhere than at the start, a bad port).
 */
export function parseHostPattern(entry: string): HostPattern {
  const fail = (why: string): never => {
    throw new Error(`settings sandbox.network: ${JSON.stringify(entry)} ${why} — write a host as example.com, *.example.com, 127.0.0.1:8080 or [::1]:8080`);
  };
  const text = entry.trim();
  if (text === "") fail("is empty");
  if (text.includes("://") || text.includes("/")) fail("is not a host (no scheme or path)");
  if (text === "*" || text === "*.*") fail('would allow every host (use network: "allow" for that)');
  let rest = text;
  let port: number | undefined;
  const bracketed = /^\[([^\]]+)\](?::(.*))?$/.exec(rest);
  if (bracketed) {
    rest = bracketed[1]!;
    if (bracketed[2] !== undefined) port = parsePort(bracketed[2]) ?? fail("has a port that is not 1–65535");
  } else if ((rest.match(/:/g) ?? []).length === 1) {
    const at = rest.lastIndexOf(":");
    port = parsePort(rest.slice(at + 1)) ?? fail("has a port that is not 1–65535");
    rest = rest.slice(0, at);
  }
  const wildcard = rest.startsWith("*.");
  if (wildcard) rest = rest.slice(2);
  const host = normalizeHost(rest);
  if (host.includes("*")) fail("has a * that is not a leading *.");
  if (!isHostName(host)) fail("is not a host name or IP address");
  if (wildcard && host.includes(":")) fail("puts *. before an IPv6 address");
  return { host, wildcard, ...(port !== undefined ? { port } : {}), text };
}

/** Whether `pattern` allows a connection to `host` (as the program asked for it) on `port`. */
export function hostMatches(pattern: HostPattern, host: string, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  const name = normalizeHost(host);
  return pattern.wildcard ? name.endsWith(`.${pattern.host}`) : name === pattern.host;
}

export function isHostAllowed(patterns: readonly HostPattern[], host: string, port: number): boolean {
  return patterns.some((pattern) => hostMatches(pattern, host, port));
}
