/**
 * The filtering proxy behind `sandbox.network: [hosts…]`. Sandboxed commands have no
 * network of their own (bubblewrap's --unshare-net); the relay inside each sandbox
 * (proxy-relay.ts) hands their proxy connections to this server, on a Unix socket in a
 * private temp folder, and it lets through only what goes to a listed host:
 *
 *  - `CONNECT host:port` (https, and anything tunnelled): the tunnel opens when the host
 *    is listed;
 *  - `GET http://host/path` (plain http in absolute form): forwarded to the host with
 *    the request line in origin form and `Connection: close`, one request per connection;
 *  - anything else, or an unlisted host: `403` whose body (and `X-Xcsh-Sandbox-Denied`
 *    header, which the relay prints to the command's stderr) names the host and the
 *    setting to change.
 * Host names are matched as the program asked for them and resolved here, by xcsh — or
 * by the network's own proxy, when xcsh goes through one (upstream-proxy.ts).
 *
 * Started on the first sandboxed command that needs it; its folder is removed and the
 * server closed when xcsh exits (or, after a SIGKILL, by the next xcsh that starts one). Why our own rather than @anthropic-ai/sandbox-runtime's:
 * its proxy is internal to a manager that builds the whole bwrap command line itself and
 * bridges with socat (not installed by default); see docs/security.md.
 */
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SocketListener } from "bun";
import { isHostAllowed, normalizeHost, type HostPattern } from "./network-hosts.ts";
import { bridgeHandlers, endAfterFlush, link, newEndpoint, send, type Endpoint } from "./socket-bridge.ts";
import { connectRequest, upstreamProxyFor, type UpstreamProxy } from "./upstream-proxy.ts";

/** The header through which a refusal reaches the relay, which prints it for the model. */
export const DENIED_HEADER = "X-Xcsh-Sandbox-Denied";
/** A request head longer than this is refused (no client needs more to name a host). */
const MAX_HEAD_BYTES = 64 * 1024;
/** Seconds a connection may take to send its request head. */
const HEAD_TIMEOUT_S = 30;

export interface RunningProxy {
  /** The Unix socket the relays connect to. */
  socketPath: string;
  /** The private folder holding it (bound read-only into each sandbox). */
  folder: string;
  close(): void;
}

interface Target {
  host: string;
  port: number;
}

function response(status: string, message: string, extraHeaders: string[] = []): string {
  const body = `${message}\n`;
  return [`HTTP/1.1 ${status}`, "Content-Type: text/plain; charset=utf-8", `Content-Length: ${Buffer.byteLength(body)}`, "Connection: close", ...extraHeaders, "", body].join("\r\n");
}

function refusal(target: Target, hosts: readonly HostPattern[]): string {
  const listed = hosts.map((pattern) => pattern.text).join(", ") || "none";
  const hostText = target.host.includes(":") ? `[${target.host}]` : target.host;
  const message =
    `xcsh sandbox: ${hostText}:${target.port} is not an allowed host, so the connection was refused. ` +
    `Allowed (settings.json sandbox.network): ${listed}. To allow it, add "${hostText}" (or "${hostText}:${target.port}" for this port only) to sandbox.network.`;
  return response("403 Forbidden", message, [`${DENIED_HEADER}: ${message}`]);
}

/** `host:port` of a CONNECT request (`[v6]:port` for IPv6); undefined when malformed. */
function parseAuthority(authority: string): Target | undefined {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(authority);
  if (!match) return undefined;
  const port = Number(match[2]);
  return port >= 1 && port <= 65535 ? { host: normalizeHost(match[1]!), port } : undefined;
}

/** Headers that belong to the hop to the proxy, not to the server. */
const HOP_HEADERS = new Set(["proxy-connection", "proxy-authorization", "connection", "keep-alive"]);

/** The request head as the server should get it: origin-form target, `Connection: close`. */
function originRequest(method: string, url: URL, version: string, headerLines: string[]): string {
  const headers = headerLines.filter((line) => !HOP_HEADERS.has(line.slice(0, line.indexOf(":")).trim().toLowerCase()));
  if (!headers.some((line) => /^host\s*:/i.test(line))) headers.unshift(`Host: ${url.host}`);
  return [`${method} ${url.pathname}${url.search} ${version}`, ...headers, "Connection: close", "", ""].join("\r\n");
}

/**
 * Connects `client` to `target`, or to the network's own proxy when xcsh goes through
 * one (upstream-proxy.ts); `opened` is what the client gets first (the 200 of a CONNECT)
 * and `first` what the server gets. Through a proxy the tunnel is the proxy's: its own
 * answer to the CONNECT (a 200, or a refusal such as 407) is what the client gets.
 */
function tunnel(client: Endpoint, target: Target, opened: string | undefined, first: Uint8Array, upstream?: UpstreamProxy): void {
  const server = newEndpoint({ onOpen: () => !upstream && opened && send(client, opened) });
  link(client, server);
  // A tunnel through the network's proxy is asked for first; its answer is the client's 200.
  if (upstream && opened) send(server, connectRequest(target, upstream));
  send(server, first);
  const to = upstream ? { hostname: upstream.host, port: upstream.port, tls: upstream.tls } : { hostname: target.host, port: target.port };
  Bun.connect<Endpoint>({ ...to, data: server, socket: bridgeHandlers }).catch((error: Error) => {
    server.closed = true;
    const hostText = target.host.includes(":") ? `[${target.host}]` : target.host;
    const what = upstream ? `the network's proxy ${upstream.label} (HTTPS_PROXY / HTTP_PROXY) on the way to ${hostText}:${target.port}` : `${hostText}:${target.port}`;
    send(client, response("502 Bad Gateway", `xcsh sandbox proxy: could not connect to ${what}: ${error.message}`));
    endAfterFlush(client);
  });
}

/** The request head for the network's proxy: absolute-form target, its credentials, `Connection: close`. */
function proxiedRequest(method: string, url: URL, version: string, headerLines: string[], proxy: UpstreamProxy): string {
  const headers = headerLines.filter((line) => !HOP_HEADERS.has(line.slice(0, line.indexOf(":")).trim().toLowerCase()));
  if (!headers.some((line) => /^host\s*:/i.test(line))) headers.unshift(`Host: ${url.host}`);
  if (proxy.authorization) headers.push(`Proxy-Authorization: ${proxy.authorization}`);
  return [`${method} ${url.href} ${version}`, ...headers, "Connection: close", "", ""].join("\r\n");
}

/** Reads one request head from `client`, then refuses it or opens the way to its host. */
function serveClient(client: Endpoint, hosts: readonly HostPattern[]): void {
  let head = Buffer.alloc(0);
  const fail = (status: string, message: string) => {
    client.onData = undefined;
    send(client, response(status, `xcsh sandbox proxy: ${message}`));
    endAfterFlush(client);
  };
  client.onData = (bytes) => {
    head = Buffer.concat([head, bytes]);
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) {
      if (head.length > MAX_HEAD_BYTES) fail("431 Request Header Fields Too Large", "the request head is too long");
      return;
    }
    client.onData = undefined;
    client.socket?.timeout(0);
    const rest = head.subarray(end + 4);
    const [requestLine = "", ...headerLines] = head.subarray(0, end).toString("latin1").split("\r\n");
    const [method = "", requestTarget = "", version = ""] = requestLine.split(" ");
    if (!/^HTTP\/1\.[01]$/.test(version)) return fail("400 Bad Request", "not an HTTP/1.x proxy request");
    if (method === "CONNECT") {
      const target = parseAuthority(requestTarget);
      if (!target) return fail("400 Bad Request", `CONNECT needs host:port, not ${JSON.stringify(requestTarget)}`);
      if (!isHostAllowed(hosts, target.host, target.port)) {
        send(client, refusal(target, hosts));
        return endAfterFlush(client);
      }
      return tunnel(client, target, `${version} 200 Connection Established\r\n\r\n`, rest, upstreamProxyFor(target, true));
    }
    let url: URL;
    try {
      url = new URL(requestTarget);
    } catch {
      return fail("400 Bad Request", `ask for an absolute http:// URL or CONNECT host:port, not ${JSON.stringify(requestTarget)}`);
    }
    if (url.protocol !== "http:") return fail("400 Bad Request", `only http:// URLs are forwarded; ${url.protocol}// and https go through CONNECT host:port`);
    const target = { host: normalizeHost(url.hostname), port: url.port ? Number(url.port) : 80 };
    if (!isHostAllowed(hosts, target.host, target.port)) {
      send(client, refusal(target, hosts));
      return endAfterFlush(client);
    }
    const proxy = upstreamProxyFor(target, false);
    const requestHead = proxy ? proxiedRequest(method, url, version, headerLines, proxy) : originRequest(method, url, version, headerLines);
    tunnel(client, target, undefined, Buffer.concat([Buffer.from(requestHead, "latin1"), rest]), proxy);
  };
}

const FOLDER_PREFIX = "xcsh-net-";

/**
 * Removes the folders of proxies whose xcsh is gone: one killed with SIGKILL runs no exit
 * hook. The folder's name carries its xcsh's pid.
 */
function removeStaleFolders(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent).filter((name) => name.startsWith(FOLDER_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const pid = Number(name.slice(FOLDER_PREFIX.length).split("-")[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
      continue; // alive (or another user's: EPERM below keeps it too)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ESRCH") continue;
    }
    rmSync(join(parent, name), { recursive: true, force: true });
  }
}

/** Starts the proxy for `hosts` on a Unix socket in a new private folder. */
export function startNetworkProxy(hosts: readonly HostPattern[]): RunningProxy {
  const parent = tmpdir();
  removeStaleFolders(parent);
  // mkdtemp makes the folder 0700: only this user can reach the socket.
  const folder = mkdtempSync(join(parent, `${FOLDER_PREFIX}${process.pid}-`));
  const socketPath = join(folder, "proxy.sock");
  let listener: SocketListener<Endpoint>;
  try {
    listener = Bun.listen<Endpoint>({
      unix: socketPath,
      socket: {
        ...bridgeHandlers,
        open(socket) {
          socket.data = newEndpoint();
          bridgeHandlers.open!(socket);
          socket.timeout(HEAD_TIMEOUT_S);
          serveClient(socket.data, hosts);
        },
      },
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  // Serving commands must not keep xcsh alive once it is otherwise done.
  listener.unref();
  let closed = false;
  return {
    socketPath,
    folder,
    close() {
      if (closed) return;
      closed = true;
      listener.stop(true);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

let running: RunningProxy | undefined;

/** The process's proxy, started on first use and closed when xcsh exits. */
export function sessionNetworkProxy(hosts: readonly HostPattern[]): RunningProxy {
  if (!running) {
    running = startNetworkProxy(hosts);
    process.once("exit", closeSessionNetworkProxy);
  }
  return running;
}

export function closeSessionNetworkProxy(): void {
  running?.close();
  running = undefined;
}
