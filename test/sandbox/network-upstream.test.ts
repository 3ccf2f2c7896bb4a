/**
 * sandbox.network's filtering proxy on a network where xcsh itself goes through a proxy
 * (HTTPS_PROXY / HTTP_PROXY): what it lets through goes through that proxy too — a
 * CONNECT tunnel, or the plain-http request in absolute form, with the proxy's
 * credentials — while NO_PROXY hosts go direct and refused hosts never reach it.
 * Through the built binary with bubblewrap, against a recording proxy in the test.
 * Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type { ExtensionFixture } from "../support/extensions.ts";
import { startHttpProxy, type HttpProxy } from "../support/http-proxy.ts";
import { textOf, type RpcProcess } from "../support/rpc-harness.ts";
import { bwrapWorks, createSandboxFixture } from "./sandbox-fixture.ts";

const canSandbox = bwrapWorks();
const curl = Bun.which("curl");
if (!canSandbox || !curl) console.warn("test/sandbox/network-upstream.test.ts: needs bubblewrap and curl; tests skipped");

let fixture: ExtensionFixture;
let base: string;
let proxy: HttpProxy;
let site: ReturnType<typeof Bun.serve>;
let started: RpcProcess | undefined;

beforeAll(async () => {
  ({ base, fixture } = createSandboxFixture("xcsh-upstream-test-"));
  proxy = await startHttpProxy();
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => new Response(`site saw ${new URL(request.url).pathname}`) });
});
afterEach(() => {
  started?.kill();
  started = undefined;
  fixture.server.clearScript();
  fixture.home.writeSettings({});
});
afterAll(async () => {
  site?.stop(true);
  await proxy?.close();
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

async function outputs(rpc: RpcProcess, commands: string[]): Promise<string[]> {
  fixture.server.enqueue(...commands.map((command) => ({ content: [{ type: "toolCall" as const, name: "bash", arguments: { command } }] })), { content: [{ type: "text", text: "done" }] });
  const from = rpc.mark();
  expect((await rpc.request({ type: "prompt", message: "go" })).success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 30_000, from);
  const messages = fixture.server.requests.at(-1)!.body.messages.filter((message: { role: string }) => message.role === "tool");
  return messages.slice(-commands.length).map((message: { content: unknown }) => textOf(message));
}

describe.skipIf(!canSandbox || !curl)("sandbox.network behind the network's own proxy", () => {
  test("allowed connections go through HTTPS_PROXY / HTTP_PROXY, tunnels and plain http alike, with its credentials; NO_PROXY hosts go direct; refused hosts never reach it", async () => {
    const port = site.port!;
    fixture.home.writeSettings({ sandbox: { mode: "workspace-write", network: [`localhost:${port}`, `127.0.0.1:${port}`] } });
    const withCredentials = proxy.url.replace("http://", "http://corp%20user:s3cret@");
    // xcsh's own requests (to the fake model at 127.0.0.1) stay direct; "localhost" goes through the proxy.
    const env = { HTTPS_PROXY: withCredentials, HTTP_PROXY: withCredentials, NO_PROXY: "127.0.0.1" };
    Object.assign(fixture.home.env, env);
    try {
      started = fixture.start(["--model", "fake/fake-model", "--no-session"]);
      const seenBefore = proxy.seen.length;
      const [tunnelled, plain, direct, refused] = await outputs(started, [
        `curl -sS -p http://localhost:${port}/tunnelled`,
        `curl -sS http://localhost:${port}/plain`,
        `curl -sS http://127.0.0.1:${port}/direct`,
        `curl -sS http://localhost:1/elsewhere`,
      ]);
      expect(tunnelled).toBe("site saw /tunnelled");
      expect(plain).toBe("site saw /plain");
      expect(direct).toBe("site saw /direct");
      expect(refused).toContain("localhost:1 is not an allowed host");
      const seen = proxy.seen.slice(seenBefore);
      expect(seen).toEqual([`CONNECT localhost:${port}`, `GET http://localhost:${port}/plain`]);
      const basic = `Basic ${Buffer.from("corp user:s3cret").toString("base64")}`;
      expect(proxy.authorizations.slice(seenBefore)).toEqual([basic, basic]);
      // The credentials went to the proxy only: the command saw its relay's address, not them.
      expect(tunnelled + plain).not.toContain("s3cret");
      expect(await started.close()).toBe(0);
    } finally {
      for (const name of Object.keys(env)) delete fixture.home.env[name];
    }
  }, 60_000);
});
