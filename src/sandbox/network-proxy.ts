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
 * One request per connection, and only that one: what a client pipelines behind it is
 * dropped (request-framing.ts), its Host header is the URL's, and through the network's
 * proxy a tunnel carries nothing until that proxy has opened it — else what follows an
 * allowed request would reach the network's proxy as a request of its own, unchecked.
 * It serves only the relays of its own xcsh: each sends the proxy's key first (a
 * sandbox of another xcsh may see this socket when their temp folder is not /tmp).
 * Host names are matched as the program asked for them and resolved here, by xcsh — a
 * name resolving to this machine's loopback needs its address listed too (loopback-names.ts)
 * — or by the network's own proxy, when xcsh goes through one (upstream-proxy.ts).
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
import { isHostAllowed, isHostName, normalizeHost, type HostPattern } from "./network-hosts.ts";
import { resolveAllowedHost } from "./loopback-names.ts";
import { bodyGate, parseRequestLine, requestFraming } from "./request-framing.ts";
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
  /** What a relay sends first, as one line: the proxy serves no connection without it. */
  key: string;
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
  const host = normalizeHost(match[1]!);
  return port >= 1 && port <= 65535 && isHostName(host) ? { host, port } : undefined;
}

/** Headers that belong to the hop to the proxy, not to the server. */
const HOP_HEADERS = new Set(["proxy-connection", "proxy-authorization", "connection", "keep-alive"]);

/**
 * The client's headers for the next hop: none of the hop's own, and the Host the URL names —
 * a Host of the client's choosing would reach another site served at the allowed address
 * (a CDN's, a virtual host's) or, through a proxy that reads Host, another host.
 */
function forwardedHeaders(url: URL, headerLines: string[]): string[] {
  const name = (line: string) => line.slice(0, line.indexOf(":")).trim().toLowerCase();
  return [`Host: ${url.host}`, ...headerLines.filter((line) => !HOP_HEADERS.has(name(line)) && name(line) !== "host")];
}

/** The request head as the server should get it: origin-form target, `Connection: close`. */
function originRequest(method: string, url: URL, version: string, headerLines: string[]): string {
  const headers = forwardedHeaders(url, headerLines);
  return [`${method} ${url.pathname}${url.search} ${version}`, ...headers, "Connection: close", "", ""].join("\r\n");
}

/**
 * Connects `client` to `target`, or to the network's own proxy when xcsh goes through
 * one (upstream-proxy.ts); `opened` is what the client gets first (the 200 of a CONNECT)
 * and `first` what the server gets. Through a proxy the tunnel is the proxy's: its own
 * answer to the CONNECT (a 200, or a refusal such as 407) is what the client gets.
 */
function tunnel(client: Endpoint, target: Target, hosts: readonly HostPattern[], opened: string | undefined, first: Uint8Array, upstream?: UpstreamProxy): void {
  const server = newEndpoint({ onOpen: () => !upstream && opened && send(client, opened) });
  if (upstream && opened) awaitUpstreamTunnel(client, server, connectRequest(target, upstream), first);
  else {
    link(client, server);
    send(server, first);
  }
  const failed = (error: Error) => {
    server.closed = true;
    const hostText = target.host.includes(":") ? `[${target.host}]` : target.host;
    const what = upstream ? `the network's proxy ${upstream.label} (HTTPS_PROXY / HTTP_PROXY) on the way to ${hostText}:${target.port}` : `${hostText}:${target.port}`;
    send(client, response("502 Bad Gateway", `xcsh sandbox proxy: could not connect to ${what}: ${error.message}`));
    endAfterFlush(client);
  };
  // Bun.connect may also throw at once (a name it will not look up): the client gets a 502 either way.
  const connect = (to: { hostname: string; port: number; tls?: boolean }) => {
    try {
      Bun.connect<Endpoint>({ ...to, data: server, socket: bridgeHandlers }).catch(failed);
    } catch (error) {
      failed(error as Error);
    }
  };
  if (upstream) return void connect({ hostname: upstream.host, port: upstream.port, tls: upstream.tls });
  // Resolved here, once: the connection goes to the address checked (loopback-names.ts).
  void resolveAllowedHost(hosts, target.host, target.port).then((resolution) => {
    if ("address" in resolution) return void connect({ hostname: resolution.address, port: target.port });
    server.closed = true;
    send(client, response("403 Forbidden", resolution.refused, [`${DENIED_HEADER}: ${resolution.refused}`]));
    endAfterFlush(client);
  });
}

/**
 * A tunnel through the network's proxy: the CONNECT goes first, and the client's bytes wait
 * until that proxy answers. A 2xx opens the tunnel (the client gets the answer as its 200);
 * anything else (407, 403) goes to the client and both connections end — bytes sent on after
 * a refusal would reach the network's proxy as requests of their own, for any host.
 */
function awaitUpstreamTunnel(client: Endpoint, server: Endpoint, connect: string, first: Uint8Array): void {
  const held: Uint8Array[] = [new Uint8Array(first)];
  client.onData = (bytes) => held.push(new Uint8Array(bytes));
  let answer = Buffer.alloc(0);
  server.onData = (bytes) => {
    answer = Buffer.concat([answer, bytes]);
    const end = answer.indexOf("\r\n\r\n");
    if (end === -1 && answer.length <= MAX_HEAD_BYTES) return;
    server.onData = undefined;
    client.onData = undefined;
    const opened = end !== -1 && /^HTTP\/1\.[01] 2\d\d /.test(answer.subarray(0, end).toString("latin1"));
    send(client, answer);
    if (!opened || client.closed) {
      endAfterFlush(client);
      endAfterFlush(server);
      return;
    }
    link(client, server);
    for (const bytes of held) send(server, bytes);
  };
  send(server, connect);
}

/** The request head for the network's proxy: absolute-form target, its credentials, `Connection: close`. */
function proxiedRequest(method: string, url: URL, version: string, headerLines: string[], proxy: UpstreamProxy): string {
  const headers = forwardedHeaders(url, headerLines);
  if (proxy.authorization) headers.push(`Proxy-Authorization: ${proxy.authorization}`);
  return [`${method} ${url.href} ${version}`, ...headers, "Connection: close", "", ""].join("\r\n");
}

/** Reads one request head from `client`, then refuses it or opens the way to its host. */
function serveClient(client: Endpoint, hosts: readonly HostPattern[], key: string): void {
  let head = Buffer.alloc(0);
  let keyed = false;
  const fail = (status: string, message: string) => {
    client.onData = undefined;
    send(client, response(status, `xcsh sandbox proxy: ${message}`));
    endAfterFlush(client);
  };
  client.onData = (bytes) => {
    head = Buffer.concat([head, bytes]);
    if (!keyed) {
      if (head.length < key.length + 1) return;
      if (!sameKey(head.subarray(0, key.length + 1), `${key}\n`)) return fail("403 Forbidden", "this proxy serves only the sandboxes of the xcsh that started it");
      keyed = true;
      head = head.subarray(key.length + 1);
    }
    const end = head.indexOf("\r\n\r\n");
    if (end === -1) {
      if (head.length > MAX_HEAD_BYTES) fail("431 Request Header Fields Too Large", "the request head is too long");
      return;
    }
    client.onData = undefined;
    client.socket?.timeout(0);
    const rest = head.subarray(end + 4);
    const [requestLine = "", ...headerLines] = head.subarray(0, end).toString("latin1").split("\r\n");
    const parsed = parseRequestLine(requestLine);
    if (typeof parsed === "string") return fail("400 Bad Request", parsed);
    const { method, target: requestTarget, version } = parsed;
    const framing = requestFraming(headerLines);
    if (typeof framing === "string") return fail("400 Bad Request", framing);
    if (method === "CONNECT") {
      const target = parseAuthority(requestTarget);
      if (!target) return fail("400 Bad Request", `CONNECT needs host:port, not ${JSON.stringify(requestTarget)}`);
      if (!isHostAllowed(hosts, target.host, target.port)) {
        send(client, refusal(target, hosts));
        return endAfterFlush(client);
      }
      return tunnel(client, target, hosts, `${version} 200 Connection Established\r\n\r\n`, rest, upstreamProxyFor(target, true));
    }
    let url: URL;
    try {
      url = new URL(requestTarget);
    } catch {
      return fail("400 Bad Request", `ask for an absolute http:// URL or CONNECT host:port, not ${JSON.stringify(requestTarget)}`);
    }
    if (url.protocol !== "http:") return fail("400 Bad Request", `only http:// URLs are forwarded; ${url.protocol}// and https go through CONNECT host:port`);
    const target = { host: normalizeHost(url.hostname), port: url.port ? Number(url.port) : 80 };
    if (!isHostName(target.host)) return fail("400 Bad Request", `${JSON.stringify(url.hostname)} is not a host name or IP address`);
    if (!isHostAllowed(hosts, target.host, target.port)) {
      send(client, refusal(target, hosts));
      return endAfterFlush(client);
    }
    const proxy = upstreamProxyFor(target, false);
    const requestHead = proxy ? proxiedRequest(method, url, version, headerLines, proxy) : originRequest(method, url, version, headerLines);
    // This request and nothing after it: the gate drops what the client pipelines behind it.
    const gate = bodyGate(framing);
    client.gate = gate;
    tunnel(client, target, hosts, undefined, Buffer.concat([Buffer.from(requestHead, "latin1"), gate(rest)]), proxy);
  };
}

/** Compares a relay's first line with the key in constant time. */
function sameKey(given: Uint8Array, expected: string): boolean {
  const want = Buffer.from(expected, "latin1");
  if (given.byteLength !== want.byteLength) return false;
  let difference = 0;
  for (let at = 0; at < want.byteLength; at++) difference |= given[at]! ^ want[at]!;
  return difference === 0;
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
  const key = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("hex");
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
          serveClient(socket.data, hosts, key);
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
    key,
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
