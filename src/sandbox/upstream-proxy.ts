/**
 * The proxy behind the filtering proxy: on a network where xcsh itself must go through
 * a proxy (HTTPS_PROXY / HTTP_PROXY, or settings' `httpProxy`, which sets them), the
 * connections the filtering proxy (network-proxy.ts) lets through go the same way —
 * a `CONNECT host:port` tunnel for CONNECT requests, the request itself in absolute form
 * for plain http — unless NO_PROXY names the host. The proxy's credentials in its URL
 * (`http://user:pass@proxy:3128`) become a Basic `Proxy-Authorization`; they go to that
 * proxy only, never into a sandbox.
 */
export interface UpstreamTarget {
  host: string;
  port: number;
}

export interface UpstreamProxy {
  host: string;
  port: number;
  tls: boolean;
  /** `Proxy-Authorization: Basic …`, when the URL carries credentials. */
  authorization?: string;
  /** `host:port` as it was configured, for messages (no credentials). */
  label: string;
}

function variable(...names: string[]): string | undefined {
  for (const name of names) {
    const value = process.env[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** Whether NO_PROXY (comma- or space-separated names, `*`, `.suffix`, `name:port`) sends `target` direct. */
export function bypassesProxy(target: UpstreamTarget, noProxy: string | undefined): boolean {
  if (!noProxy) return false;
  const host = target.host.toLowerCase().replace(/^\[|\]$/g, "");
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === "*") return true;
    const portMatch = /^(.*):(\d+)$/.exec(entry);
    if (portMatch && !portMatch[1]!.includes(":")) {
      if (Number(portMatch[2]) !== target.port) continue;
      entry = portMatch[1]!;
    }
    entry = entry.replace(/^\*?\./, "").replace(/^\[|\]$/g, "");
    if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function parseProxy(value: string): UpstreamProxy | undefined {
  let url: URL;
  try {
    url = new URL(value.includes("://") ? value : `http://${value}`);
  } catch {
    return undefined;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return undefined;
  const tls = url.protocol === "https:";
  const port = url.port ? Number(url.port) : tls ? 443 : 80;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const user = decodeURIComponent(url.username);
  const authorization = user || url.password ? `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString("base64")}` : undefined;
  return { host, port, tls, authorization, label: `${url.hostname}:${port}` };
}

/**
 * The proxy to reach `target` through, or undefined to connect directly. `tunnel`: a
 * CONNECT request (HTTPS_PROXY first, as curl reads it for https); else plain http (HTTP_PROXY).
 */
export function upstreamProxyFor(target: UpstreamTarget, tunnel: boolean): UpstreamProxy | undefined {
  const configured = tunnel ? variable("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy") : variable("HTTP_PROXY", "http_proxy");
  if (!configured || bypassesProxy(target, variable("NO_PROXY", "no_proxy"))) return undefined;
  return parseProxy(configured);
}

/** The request that opens a tunnel to `target` through `proxy`. */
export function connectRequest(target: UpstreamTarget, proxy: UpstreamProxy): string {
  const authority = `${target.host.includes(":") ? `[${target.host}]` : target.host}:${target.port}`;
  return [`CONNECT ${authority} HTTP/1.1`, `Host: ${authority}`, ...(proxy.authorization ? [`Proxy-Authorization: ${proxy.authorization}`] : []), "", ""].join("\r\n");
}
