/**
 * The relay inside a sandbox whose network is a list of hosts: `xcsh --sandbox-relay
 * <socket> <key> -- <program> [args…]`, run by bubblewrap in place of the command. Each
 * connection to the proxy starts with the key and a newline: the proxy serves its own
 * xcsh's relays only (another xcsh's sandbox may see its socket).
 *
 * With --unshare-net the sandbox has only a loopback of its own, so programs cannot reach
 * xcsh's filtering proxy (network-proxy.ts) there — but they can reach its Unix socket,
 * a file. The relay listens on 127.0.0.1 at a free port of the sandbox's loopback,
 * passes each connection on to the socket, and runs the program with HTTP_PROXY,
 * HTTPS_PROXY and ALL_PROXY (both spellings) naming that port. It starts the program only
 * once it listens, so the first request cannot race it, and exits with the program's
 * status; the sandbox's PID namespace ends it with the program in any case.
 *
 * A refusal from the proxy (403 with X-Xcsh-Sandbox-Denied) is printed once per host to
 * stderr: clients show a refused CONNECT as "response 403" at best, and the model should
 * read which host was refused and which setting allows it.
 */
import { writeSync } from "node:fs";
import { bridgeHandlers, link, newEndpoint, send, endAfterFlush, type Endpoint } from "./socket-bridge.ts";

const DENIED_HEADER = "x-xcsh-sandbox-denied:";

/** The variables proxy-aware programs read (curl, npm, pip, git, Bun, Node's undici with the flag, Go). */
function proxyEnvironment(port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    HTTP_PROXY: url,
    HTTPS_PROXY: url,
    ALL_PROXY: url,
    http_proxy: url,
    https_proxy: url,
    all_proxy: url,
    // Nothing bypasses the proxy: there is no other way out.
    NO_PROXY: "",
    no_proxy: "",
  };
}

/** Prints a refusal the proxy sent back, once per message. */
function refusalReporter(): (bytes: Uint8Array) => void {
  const reported = new Set<string>();
  return (bytes) => {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 4096)).toString("latin1");
    if (!text.startsWith("HTTP/1.1 403")) return;
    const at = text.toLowerCase().indexOf(`\r\n${DENIED_HEADER}`);
    if (at === -1) return;
    const start = at + 2 + DENIED_HEADER.length;
    const line = text.slice(start, text.indexOf("\r\n", start)).trim();
    if (reported.has(line)) return;
    reported.add(line);
    // Written at once: the program may exit right after the refusal, and the relay with it.
    writeSync(2, `${line}\n`);
  };
}

/** Exit status as a shell reports it: the code, or 128 + the signal's number. */
async function statusOf(proc: Bun.Subprocess): Promise<number> {
  const code = await proc.exited;
  const signal = proc.signalCode;
  if (signal === null || signal === undefined) return code;
  if (typeof signal === "number") return 128 + signal;
  const { constants } = await import("node:os");
  return 128 + (constants.signals[signal as keyof typeof constants.signals] ?? 1);
}

/** `argv`: `<socket> <key> -- <program> [args…]`. Returns the program's exit status. */
export async function runSandboxRelay(argv: readonly string[]): Promise<number> {
  const [socketPath, key, separator, ...program] = argv;
  if (!socketPath || !key || separator !== "--" || program.length === 0) {
    writeSync(2, "xcsh --sandbox-relay: usage: --sandbox-relay <socket> <key> -- <program> [args…] (internal)\n");
    return 2;
  }
  const reportRefusal = refusalReporter();
  let listener: Bun.TCPSocketListener<Endpoint>;
  try {
    listener = Bun.listen<Endpoint>({
      hostname: "127.0.0.1",
      port: 0,
      socket: {
        ...bridgeHandlers,
        open(socket) {
          const client = newEndpoint();
          socket.data = client;
          bridgeHandlers.open!(socket);
          const proxy = newEndpoint({ tap: reportRefusal });
          link(client, proxy);
          send(proxy, `${key}\n`);
          Bun.connect<Endpoint>({ unix: socketPath, data: proxy, socket: bridgeHandlers }).catch((error: Error) => {
            proxy.closed = true;
            const body = `xcsh sandbox: the network proxy is not reachable (${error.message})\n`;
            send(client, `HTTP/1.1 502 Bad Gateway\r\nContent-Type: text/plain\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
            endAfterFlush(client);
          });
        },
      },
    });
  } catch (error) {
    writeSync(2, `xcsh sandbox: could not start the network relay: ${(error as Error).message}\n`);
    return 1;
  }
  const env: Record<string, string | undefined> = { ...process.env, ...proxyEnvironment(listener.port) };
  let proc: Bun.Subprocess;
  try {
    proc = Bun.spawn([...program], { env, stdio: ["inherit", "inherit", "inherit"] });
  } catch (error) {
    writeSync(2, `xcsh sandbox: ${(error as Error).message}\n`);
    return 127;
  }
  const status = await statusOf(proc);
  listener.stop(true);
  return status;
}
