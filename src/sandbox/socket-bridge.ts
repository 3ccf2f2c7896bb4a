/**
 * Joins two Bun sockets so that what one receives the other sends, both ways — the
 * plumbing of the filtering proxy (network-proxy.ts) and of the relay inside the
 * sandbox (proxy-relay.ts). Bun's native sockets rather than node:net: loading
 * node:net costs a process ~25 ms, and the relay starts with every sandboxed command.
 *
 * `write` on a Bun socket takes what the kernel accepts and says how much; the rest
 * waits in the receiving end's backlog, the sending socket is paused until `drain`
 * has flushed it (so a fast sender cannot fill memory), and bytes for a socket still
 * connecting wait the same way. When either socket closes, the other is ended once its
 * backlog is written.
 */
import type { Socket, SocketHandler } from "bun";

export interface Endpoint {
  socket?: Socket<Endpoint>;
  /** The other end: where this socket's incoming bytes go. Until set, `onData` sees them. */
  peer?: Endpoint;
  /** Bytes for this socket that it has not accepted yet. */
  backlog: Uint8Array[];
  /** End the socket once its backlog is written. */
  ending: boolean;
  closed: boolean;
  /** Incoming bytes while the endpoint has no peer (the proxy reads the request head here). */
  onData?: (bytes: Uint8Array) => void;
  /** Sees incoming bytes before they go to the peer (the relay looks at the proxy's answer). */
  tap?: (bytes: Uint8Array) => void;
  /** Decides which of the incoming bytes go on to the peer (the proxy's one-request rule). */
  gate?: (bytes: Uint8Array) => Uint8Array;
  /** The socket is connected (called before queued bytes are written to it). */
  onOpen?: () => void;
}

export function newEndpoint(init: Partial<Endpoint> = {}): Endpoint {
  return { backlog: [], ending: false, closed: false, ...init };
}

export function link(a: Endpoint, b: Endpoint): void {
  a.peer = b;
  b.peer = a;
}

/** Writes what the socket takes now; false when some is left. */
function flush(end: Endpoint): boolean {
  const socket = end.socket;
  if (!socket) return end.backlog.length === 0;
  while (end.backlog.length > 0) {
    const chunk = end.backlog[0]!;
    const written = socket.write(chunk);
    if (written < 0) {
      end.backlog.length = 0; // closing: nothing more will be taken
      return true;
    }
    if (written < chunk.byteLength) {
      end.backlog[0] = chunk.subarray(written);
      return false;
    }
    end.backlog.shift();
  }
  return true;
}

/** Sends `bytes` to `to`; pauses its peer (the sender) while `to` cannot take them. */
export function send(to: Endpoint, bytes: Uint8Array | string): void {
  if (to.closed || to.ending) return;
  const chunk = typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes;
  if (chunk.byteLength === 0) return;
  // Bun may reuse the buffer a `data` callback got: a queued chunk is a copy.
  to.backlog.push(new Uint8Array(chunk));
  if (!flush(to)) to.peer?.socket?.pause();
}

/** Ends `end` once what is queued for it is written. */
export function endAfterFlush(end: Endpoint): void {
  if (end.closed) return;
  end.ending = true;
  if (end.backlog.length === 0) end.socket?.end();
}

/** Socket handlers for Bun.listen / Bun.connect whose `data` is an Endpoint. */
export const bridgeHandlers: SocketHandler<Endpoint> = {
  open(socket) {
    const end = socket.data;
    end.socket = socket;
    end.onOpen?.();
    if (flush(end)) {
      end.peer?.socket?.resume();
      if (end.ending) socket.end();
    }
  },
  data(socket, bytes) {
    const end = socket.data;
    end.tap?.(bytes);
    if (end.peer) send(end.peer, end.gate ? end.gate(bytes) : bytes);
    else end.onData?.(bytes);
  },
  drain(socket) {
    const end = socket.data;
    if (!flush(end)) return;
    if (end.ending) socket.end();
    else end.peer?.socket?.resume();
  },
  end(socket) {
    // The other side sent FIN: pass it on once the peer has what came before it.
    socket.data.peer && endAfterFlush(socket.data.peer);
    socket.end();
  },
  close(socket) {
    const end = socket.data;
    end.closed = true;
    end.backlog.length = 0;
    if (end.peer) endAfterFlush(end.peer);
  },
  error() {
    // `close` follows and ends the peer.
  },
};
