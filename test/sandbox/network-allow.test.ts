/**
 * settings.json `sandbox.network: [hosts…]` as the model meets it, through the built
 * binary on Linux (bubblewrap): a command reaches a listed host through xcsh's filtering
 * proxy — plain http, a CONNECT tunnel, a listed name that the proxy resolves — and
 * reads a refusal that names the host and the setting for anything else; a raw socket
 * reaches nothing; a command cannot take the proxy's socket away from the next one; the
 * command's exit status passes through the relay; the proxy's folder is gone when xcsh
 * ends. `network: "deny"` still blocks everything and sets no proxy. No DNS and no
 * network: the servers are on loopback and `localhost` is the name. Skipped, saying why,
 * where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary } from "../support/cli.ts";
import type { ExtensionFixture } from "../support/extensions.ts";
import { bwrapWorks, createSandboxFixture } from "./sandbox-fixture.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/sandbox/network-allow.test.ts: bubblewrap cannot run here (install the bubblewrap package); sandbox network tests skipped");
// XCSH_TEST_WITHOUT_CURL=1 runs the fallbacks of machines without curl.
const curl = process.env.XCSH_TEST_WITHOUT_CURL ? null : Bun.which("curl");

let fixture: ExtensionFixture;
let base: string;
let allowedServer: ReturnType<typeof Bun.serve>;
let otherServer: ReturnType<typeof Bun.serve>;
const hits = { allowed: 0, other: 0 };

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-netallow-test-"));
  allowedServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      hits.allowed++;
      return new Response(`allowed server saw ${new URL(request.url).pathname}`);
    },
  });
  otherServer = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      hits.other++;
      return new Response("other server");
    },
  });
});
/** The agent a test started: killed after it, so a failed test leaves no proxy for the next to see. */
let started: RpcProcess | undefined;
const start = () => (started = fixture.start(["--model", "fake/fake-model", "--no-session"]));
afterEach(() => {
  started?.kill();
  started = undefined;
  fixture.server.clearScript();
  fixture.home.writeSettings({});
});
afterAll(async () => {
  allowedServer?.stop(true);
  otherServer?.stop(true);
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

async function toolResults(rpc: RpcProcess, commands: string[]): Promise<Array<{ text: string; isError: boolean }>> {
  const calls = commands.map((command) => ({ content: [{ type: "toolCall" as const, name: "bash", arguments: { command } }] }));
  fixture.server.enqueue(...calls, { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
  const ends = rpc.ofType("tool_execution_end", from);
  const messages = fixture.server.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === "tool");
  return messages.slice(-commands.length).map((message: { content: unknown }, index: number) => ({ text: textOf(message), isError: ends[index]?.isError === true }));
}

/** A proxy-aware GET: curl where it is installed, else Bun's fetch (the binary as bun), which reads HTTP_PROXY too. */
function get(url: string): string {
  if (curl) return `curl -sS ${url}`;
  return `BUN_BE_BUN=1 ${ensureBinary()} -e 'console.log(await (await fetch(${JSON.stringify(url)})).text())'`;
}

/** A CONNECT tunnel through the proxy, as https clients open one (curl -p; bash's /dev/tcp without curl). */
function tunnel(host: string, port: number, path: string): string {
  if (curl) return `curl -sS -p http://${host}:${port}${path}`;
  return (
    `exec 3<>/dev/tcp/127.0.0.1/\${HTTPS_PROXY##*:} && ` +
    `printf 'CONNECT ${host}:${port} HTTP/1.1\\r\\nHost: ${host}:${port}\\r\\n\\r\\nGET ${path} HTTP/1.1\\r\\nHost: ${host}\\r\\nConnection: close\\r\\n\\r\\n' >&3 && cat <&3`
  );
}

const raw = (port: number) => `exec 3<>/dev/tcp/127.0.0.1/${port} && echo raw-connected || echo raw-refused`;

describe.skipIf(!canSandbox)("sandbox.network: a list of hosts", () => {
  test("a listed host is reached through the proxy, by address, by name and through a tunnel; anything else is refused with a message naming the host and the setting; raw sockets reach nothing", async () => {
    const allowed = allowedServer.port!;
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`127.0.0.1:${allowed}`, `localhost:${allowed}`] } });
    const rpc = start();
    const before = { ...hits };
    const [byAddress, byName, tunnelled, otherPort, otherHost, rawSocket, env] = await toolResults(rpc, [
      get(`http://127.0.0.1:${allowed}/by-address`),
      get(`http://localhost:${allowed}/by-name`),
      tunnel("127.0.0.1", allowed, "/tunnelled"),
      get(`http://127.0.0.1:${otherServer.port}/`),
      tunnel("registry.example.invalid", 443, "/"),
      raw(allowed),
      "env | grep -i '^https_proxy=' | LC_ALL=C sort",
    ]);
    expect(byAddress!.text).toBe("allowed server saw /by-address");
    expect(byName!.text).toBe("allowed server saw /by-name");
    expect(tunnelled!.text).toContain("allowed server saw /tunnelled");

    expect(otherPort!.text).toContain(`xcsh sandbox: 127.0.0.1:${otherServer.port} is not an allowed host, so the connection was refused.`);
    expect(otherPort!.text).toContain(`Allowed (settings.json sandbox.network): 127.0.0.1:${allowed}, localhost:${allowed}`);
    expect(otherPort!.text).not.toContain("other server");
    // A refused tunnel: clients show only "403"; the relay prints which host and what to change.
    expect(otherHost!.text).toContain('registry.example.invalid:443 is not an allowed host, so the connection was refused. Allowed (settings.json sandbox.network)');
    expect(otherHost!.text).toContain('add "registry.example.invalid"');

    expect(rawSocket!.text).toContain("raw-refused");
    expect(env!.text).toMatch(/^HTTPS_PROXY=http:\/\/127\.0\.0\.1:\d+\nhttps_proxy=http:\/\/127\.0\.0\.1:\d+$/);

    expect(hits.allowed - before.allowed).toBe(3);
    expect(hits.other - before.other).toBe(0);
    expect(await rpc.close()).toBe(0);
  }, 60_000);

  test("a command cannot take the proxy's socket from the next one; exit statuses pass through; the proxy's folder is gone when xcsh ends, and a dead xcsh's is removed", async () => {
    const allowed = allowedServer.port!;
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`127.0.0.1:${allowed}`] } });
    const tmp = fixture.home.env.TMPDIR!;
    // What an xcsh killed with SIGKILL leaves: the folder of a proxy whose process is gone.
    const gone = Bun.spawn(["true"]);
    await gone.exited;
    mkdirSync(join(tmp, `xcsh-net-${gone.pid}-stale`));
    const rpc = start();
    const [first, removal, after, malformed, status] = await toolResults(rpc, [
      get(`http://127.0.0.1:${allowed}/first`),
      `rm -rf ${tmp}/xcsh-net-*/proxy.sock 2>&1; ls ${tmp}/xcsh-net-*/`,
      get(`http://127.0.0.1:${allowed}/after`),
      // Speaking to the proxy as to a server, or not in HTTP at all: answered, and it keeps serving.
      `exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:}; printf 'GET /x HTTP/1.1\r\nHost: a\r\n\r\n' >&3; head -n 1 <&3; exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:}; printf 'garbage\r\n\r\n' >&3; tail -n 1 <&3`,
      "echo failing; exit 3",
    ]);
    expect(first!.text).toBe("allowed server saw /first");
    expect(removal!.text).toContain("Read-only file system");
    expect(removal!.text).toContain("proxy.sock");
    expect(after!.text).toBe("allowed server saw /after");
    expect(malformed!.text).toMatch(/^HTTP\/1\.1 400 Bad Request\r?\nxcsh sandbox proxy: not an HTTP\/1\.x proxy request$/);
    expect(status!.isError).toBe(true);
    expect(status!.text).toContain("failing");
    expect(status!.text).toContain("exited with code 3");
    expect(readdirSync(tmp).filter((name) => name.startsWith("xcsh-net-"))).toEqual([expect.stringMatching(new RegExp(`^xcsh-net-${rpc.proc.pid}-`))]);
    expect(await rpc.close()).toBe(0);
    expect(readdirSync(tmp).filter((name) => name.startsWith("xcsh-net-"))).toEqual([]);
  }, 60_000);

  test('network "deny" still blocks everything and names no proxy', async () => {
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: "deny" } });
    const rpc = start();
    const before = hits.allowed;
    const [fetched, env] = await toolResults(rpc, [`${get(`http://127.0.0.1:${allowedServer.port}/denied`)} || echo fetch-failed`, "env | grep -ci _proxy; true"]);
    expect(fetched!.text).toContain("fetch-failed");
    expect(fetched!.text).not.toContain("allowed server saw");
    expect(env!.text).toBe("0");
    expect(hits.allowed).toBe(before);
    expect(readdirSync(fixture.home.env.TMPDIR!).filter((name) => name.startsWith("xcsh-net-"))).toEqual([]);
    expect(await rpc.close()).toBe(0);
  }, 60_000);
});
