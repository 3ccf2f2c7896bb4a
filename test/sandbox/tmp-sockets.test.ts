/**
 * Other programs' Unix sockets in the shared /tmp are out of a sandboxed command's reach (a
 * tmux server there would run anything it is sent), whether in a folder of /tmp or directly
 * in it, network or not; settings' `sandbox.tmpSockets` lets listed ones through. Through the
 * built binary on Linux (bubblewrap), with curl talking HTTP over the socket. Skipped, saying
 * why, where bwrap or curl cannot run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { bashCall, bwrapWorks, createSandboxFixture, toolResults } from "./sandbox-fixture.ts";

const canRun = bwrapWorks() && Bun.which("curl") !== null;
if (!canRun) console.warn("test/sandbox/tmp-sockets.test.ts: bubblewrap or curl cannot run here; tests skipped");

let fixture: ExtensionFixture;
let base: string;
/** A folder of /tmp holding a socket, as tmux's /tmp/tmux-<uid> does. */
let socketFolder: string;
let servers: Array<ReturnType<typeof Bun.serve>> = [];
let hits = 0;

const serve = (path: string) =>
  Bun.serve({
    unix: path,
    fetch: () => {
      hits++;
      return new Response("server reached");
    },
  });

beforeAll(() => {
  ({ base, fixture } = createSandboxFixture("xcsh-sockets-test-"));
  if (!canRun) return;
  socketFolder = mkdtempSync("/tmp/xcsh-socket-test-");
  servers = [serve(join(socketFolder, "default")), serve(`${socketFolder}.sock`)];
});
afterAll(async () => {
  for (const server of servers) server.stop(true);
  if (socketFolder) rmSync(socketFolder, { recursive: true, force: true });
  if (socketFolder) rmSync(`${socketFolder}.sock`, { force: true });
  await fixture?.cleanup();
  rmSync(base, { recursive: true, force: true });
});

const reach = (socket: string) => bashCall(`curl -s --max-time 5 --unix-socket ${socket} http://localhost/ || echo unreachable`);

describe.skipIf(!canRun)("sockets in /tmp", () => {
  test("a command reaches no socket in a folder of /tmp nor directly in /tmp, even with the network allowed", async () => {
    fixture.home.writeSettings({ sandbox: { network: "allow" } });
    const hitsBefore = hits;
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write"]);
    const [inFolder, direct, listing] = await toolResults(fixture, rpc, [reach(join(socketFolder, "default")), reach(`${socketFolder}.sock`), bashCall(`ls -A ${socketFolder} | wc -l`)]);
    expect(inFolder!.text).toBe("unreachable");
    expect(direct!.text).toBe("unreachable");
    expect(listing!.text).toBe("0");
    expect(hits).toBe(hitsBefore);
    expect(await rpc.close()).toBe(0);
  }, 60_000);

  test("a folder of /tmp that holds the project stays, whatever sockets it holds", async () => {
    const folder = mkdtempSync("/tmp/xcsh-socket-project-");
    const project = join(folder, "project");
    mkdirSync(project);
    writeFileSync(join(project, "readme.txt"), "in the project\n");
    const server = serve(join(folder, "server.sock"));
    const rpc = startRpc({ env: fixture.home.env, cwd: project, args: ["--model", "fake/fake-model", "--sandbox", "workspace-write"] });
    try {
      const [read] = await toolResults(fixture, rpc, [bashCall("cat readme.txt && echo written > made.txt && echo ok")]);
      expect(read!.text).toBe("in the project\nok");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
      server.stop(true);
    }
    expect(readFileSync(join(project, "made.txt"), "utf8")).toBe("written\n");
    rmSync(folder, { recursive: true, force: true });
  }, 60_000);

  test("xcsh's own filtering proxy stays reachable when its temp folder lies in a folder of /tmp", async () => {
    const site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("through the proxy") });
    fixture.home.writeSettings({ sandbox: { network: [`127.0.0.1:${site.port}`] } });
    const folder = mkdtempSync("/tmp/xcsh-socket-tmpdir-");
    const env = { ...fixture.home.env, TMPDIR: folder };
    const rpc = startRpc({ env, cwd: fixture.cwd, args: ["--model", "fake/fake-model", "--sandbox", "workspace-write"] });
    try {
      const [fetched] = await toolResults(fixture, rpc, [bashCall(`curl -s --max-time 5 http://127.0.0.1:${site.port}/`)]);
      expect(fetched!.text).toBe("through the proxy");
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.kill();
      site.stop(true);
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);

  test("sandbox.tmpSockets lets the listed ones through", async () => {
    fixture.home.writeSettings({ sandbox: { tmpSockets: [socketFolder, `${socketFolder}.sock`] } });
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write"]);
    const [inFolder, direct] = await toolResults(fixture, rpc, [reach(join(socketFolder, "default")), reach(`${socketFolder}.sock`)]);
    expect(inFolder!.text).toBe("server reached");
    expect(direct!.text).toBe("server reached");
    expect(await rpc.close()).toBe(0);
  }, 60_000);
});
