/**
 * The sandbox as an ACP session config option ("sandbox"), through the built binary
 * with bubblewrap: an editor sees the mode commands run under and can make it stricter
 * for the agent; from then on the bash tool runs here, sandboxed, not in the editor's
 * terminal, and writes through the editor (fs/write_text_file) are held to the same
 * folders; the model reads each refusal; the sandbox cannot be loosened again.
 * Skipped, saying why, where bwrap cannot run.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { bwrapWorks } from "../../sandbox/sandbox-fixture.ts";
import { createAcpFixture, type AcpFixture } from "./support/acp-harness.ts";

const canSandbox = bwrapWorks();
if (!canSandbox) console.warn("test/modes/acp/sandbox-option.test.ts: bubblewrap cannot run here (install the bubblewrap package); tests skipped");

let fixture: AcpFixture;
/** Outside /tmp, which sandboxed commands may write. */
let outside: string;

beforeAll(async () => {
  fixture = await createAcpFixture();
  outside = mkdtempSync(join(existsSync("/var/tmp") ? "/var/tmp" : process.cwd(), "xcsh-acp-outside-"));
});
afterEach(() => fixture.fake.server.clearScript());
afterAll(async () => {
  await fixture.cleanup();
  rmSync(outside, { recursive: true, force: true });
});

const bashCall = (command: string, id: string) => ({ content: [{ type: "toolCall" as const, id, name: "bash", arguments: { command } }] });
const done = { content: [{ type: "text" as const, text: "done" }] };
type Option = { id: string; currentValue: string; options: { value: string }[] };
const sandboxOf = (options: Option[]) => options.find((option) => option.id === "sandbox");

describe.skipIf(!canSandbox)("the sandbox as an ACP config option", () => {
  test("made stricter by the editor, it holds commands (run here, not in the editor's terminal) and writes through the editor; it cannot be loosened", async () => {
    const client = fixture.spawn({ fs: true, terminal: true, permission: () => "allow_once" });
    const { sessionId, configOptions } = await client.start(fixture.cwd);
    const offered = sandboxOf(configOptions as Option[]);
    expect(offered?.currentValue).toBe("off");
    expect(offered?.options.map((option) => option.value)).toEqual(["off", "read-only", "workspace-write"]);

    // Off: the editor runs the command in its terminal, as before.
    fixture.fake.server.enqueue(bashCall("echo in-terminal", "call_terminal"), done);
    await client.prompt(sessionId, "run it");
    expect(client.terminalCalls).toContain("create");

    const changed = await client.agent.request("session/set_config_option", { sessionId, configId: "sandbox", value: "workspace-write" });
    expect(sandboxOf(changed.configOptions as Option[])?.currentValue).toBe("workspace-write");

    const terminalCallsBefore = client.terminalCalls.length;
    fixture.fake.server.enqueue(
      bashCall(`echo x > ${join(outside, "from-bash.txt")} && echo wrote || echo refused`, "call_outside"),
      { content: [{ type: "toolCall", id: "call_write", name: "write", arguments: { path: join(outside, "from-write.txt"), content: "x" } }] },
      bashCall("echo made-inside > inside.txt && cat inside.txt", "call_inside"),
      done,
    );
    await client.prompt(sessionId, "try both");
    expect(client.terminalCalls.length).toBe(terminalCallsBefore);
    expect(existsSync(join(outside, "from-bash.txt"))).toBe(false);
    expect(existsSync(join(outside, "from-write.txt"))).toBe(false);
    expect(client.fsWrites.filter((write) => write.path.startsWith(outside))).toEqual([]);
    const seen = JSON.stringify(fixture.fake.server.requests.at(-1)!.body.messages);
    expect(seen).toContain("Read-only file system");
    expect(seen).toContain("outside the writable folders");
    expect(readFileSync(join(fixture.cwd, "inside.txt"), "utf8")).toBe("made-inside\n");

    const refused = await client.agent.request("session/set_config_option", { sessionId, configId: "sandbox", value: "off" }).then(
      () => undefined,
      (error: { message?: string; data?: unknown }) => JSON.stringify(error.data ?? error.message),
    );
    expect(refused).toContain("can only be made stricter");
    expect(await client.close()).toBe(0);
  }, 60_000);
});
