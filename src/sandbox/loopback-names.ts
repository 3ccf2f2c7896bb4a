/**
 * A listed name that resolves to this machine: the filtering proxy (network-proxy.ts)
 * resolves the names commands ask for, and without a check a name whose DNS answer the
 * command's author controls (a wildcard entry's sub-domain, a rebinding DNS server) would
 * reach the services listening on the user's loopback — a database, a dev server, a
 * container engine's API. So a name other than `localhost` (and `*.localhost`, which mean
 * this machine by definition) that resolves to a loopback address is refused unless that
 * address is on the list too, and the connection goes to the address checked, never to a
 * second lookup that could answer differently. Only for connections xcsh makes itself: the
 * network's own proxy resolves what goes through it.
 */
import { isHostAllowed, type HostPattern } from "./network-hosts.ts";

/** 127.0.0.0/8, 0.0.0.0/8 (Linux connects it to loopback), ::1, ::, and IPv4-mapped forms. */
export function isLoopbackAddress(address: string): boolean {
  const ip = address.toLowerCase().replace(/^::ffff:/, "");
  if (/^(127|0)\.\d+\.\d+\.\d+$/.test(ip)) return true;
  return ip === "::1" || ip === "::" || ip === "0:0:0:0:0:0:0:1";
}

const isIpLiteral = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
const meansThisMachine = (host: string) => host === "localhost" || host.endsWith(".localhost");

export type Resolution = { address: string } | { refused: string };

/**
 * Where to connect for `host` (as the program asked for it, already allowed by the list):
 * the address to use, or why it is refused. A lookup that fails leaves the name to the
 * connection, which reports the failure.
 */
export async function resolveAllowedHost(hosts: readonly HostPattern[], host: string, port: number): Promise<Resolution> {
  if (isIpLiteral(host) || meansThisMachine(host)) return { address: host };
  let addresses: string[];
  try {
    addresses = (await Bun.dns.lookup(host, {})).map((entry) => entry.address);
  } catch {
    return { address: host };
  }
  const loopback = addresses.find((address) => isLoopbackAddress(address) && !isHostAllowed(hosts, address, port));
  if (loopback !== undefined) {
    const listed = loopback.includes(":") ? `[${loopback}]:${port}` : `${loopback}:${port}`;
    return { refused: `xcsh sandbox: ${host} resolves to ${loopback}, an address of this machine, so the connection was refused. To allow it, add "${listed}" to sandbox.network as well.` };
  }
  return { address: addresses[0] ?? host };
}
