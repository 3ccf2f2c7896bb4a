/**
 * Other programs' Unix sockets in the shared /tmp are out of a sandboxed command's reach (a
 * tmux server there would run anything it is sent), whether in a folder of /tmp or directly
 * in it, network or not; settings' `sandbox.tmpSockets` lets listed ones through. Through the
 * built binary on Linux (bubblewrap), with curl talking HTTP over the socket. Skipped, saying
 * why, where bwrap or curl cannot run.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { ExtensionFixture } from "../support/extensions.ts";
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

  test("sandbox.tmpSockets lets the listed ones through", async () => {
    fixture.home.writeSettings({ sandbox: { tmpSockets: [socketFolder, `${socketFolder}.sock`] } });
    const rpc = fixture.start(["--model", "fake/fake-model", "--sandbox", "workspace-write"]);
    const [inFolder, direct] = await toolResults(fixture, rpc, [reach(join(socketFolder, "default")), reach(`${socketFolder}.sock`)]);
    expect(inFolder!.text).toBe("server reached");
    expect(direct!.text).toBe("server reached");
    expect(await rpc.close()).toBe(0);
  }, 60_000);
});
