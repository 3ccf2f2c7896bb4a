/**
 * A forward proxy in the test's own process, as a corporate network has one: HTTPS goes
 * through `CONNECT host:port` (a tunnel; the proxy never sees the request inside), plain
 * HTTP as an absolute-URI request it relays. Every request line is kept, so a test sees
 * which hosts a program reached through the proxy.
 */
import net from "node:net";

export interface HttpProxy {
  /** http://127.0.0.1:PORT, the value for HTTPS_PROXY / HTTP_PROXY. */
  url: string;
  /** Request lines seen, oldest first: "CONNECT localhost:443" or "POST http://127.0.0.1:9/x". */
  seen: string[];
  /** The Proxy-Authorization header of each request ("" without one), in the same order. */
  authorizations: string[];
  close(): Promise<void>;
}

export async function startHttpProxy(): Promise<HttpProxy> {
  const seen: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    sockets.add(client);
    client.on("close", () => sockets.delete(client));
    client.on("error", () => client.destroy());
    client.once("data", (first: Buffer) => {
      const line = first.toString("latin1").split("\r\n", 1)[0] ?? "";
      const [method = "", target = ""] = line.split(" ");
      seen.push(`${method} ${target}`);
      authorizations.push(/\r\nproxy-authorization:\s*([^\r]*)/i.exec(first.toString("latin1"))?.[1] ?? "");
      const tunnel = method === "CONNECT";
      const { host, port } = tunnel ? splitHostPort(target) : fromUrl(target);
      const upstream = net.connect(port, host, () => {
        if (tunnel) client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
        else upstream.write(first);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on("close", () => sockets.delete(upstream));
      upstream.on("error", () => client.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

function splitHostPort(target: string): { host: string; port: number } {
  const at = target.lastIndexOf(":");
  return { host: target.slice(0, at).replace(/^\[|\]$/g, ""), port: Number(target.slice(at + 1)) };
}

function fromUrl(target: string): { host: string; port: number } {
  const url = new URL(target);
  return { host: url.hostname, port: Number(url.port || 80) };
}
