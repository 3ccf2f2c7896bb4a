/**
 * The basic Python client of seed 000 ("示例:基础客户端(Python)"), run as
 * written there with only the command changed to start this build of xcsh.
 * It must print the streamed answer and stop at agent_end.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { BINARY } from "../../support/cli.ts";
import { createRpcFixture, type RpcFixture } from "../../support/rpc-harness.ts";

const python = Bun.which("python3");

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

/** The seed's client; the one change is the command in Popen (was ["pi", "--mode", "rpc", "--no-session"]). */
function seedClient(command: string[]): string {
  return `import subprocess
import json

proc = subprocess.Popen(
    ${JSON.stringify(command)},
    stdin=subprocess.PIPE,
    stdout=subprocess.PIPE,
    text=True
)

def send(cmd):
    proc.stdin.write(json.dumps(cmd) + "\\n")
    proc.stdin.flush()

def read_events():
    for line in proc.stdout:
        yield json.loads(line)

# Send prompt
send({"type": "prompt", "message": "Hello!"})

# Process events
for event in read_events():
    if event.get("type") == "message_update":
        delta = event.get("assistantMessageEvent", {})
        if delta.get("type") == "text_delta":
            print(delta["delta"], end="", flush=True)
    
    if event.get("type") == "agent_end":
        print()
        break
`;
}

const title = python
  ? "the seed's Python client prints the streamed answer"
  : "the seed's Python client prints the streamed answer (skipped: python3 is not installed)";

test.skipIf(!python)(title, async () => {
  const answer = "Hello from xcsh, streamed in small pieces: é, 漢字, and \u2028 a line separator.";
  fixture.server.enqueue({ content: [{ type: "text", text: answer }], chunkSize: 5 });
  const script = join(fixture.home.home, "client.py");
  writeFileSync(script, seedClient([BINARY, "--mode", "rpc", "--no-session"]));
  const before = fixture.server.requests.length;

  const proc = Bun.spawn([python!, script], { cwd: fixture.cwd, env: fixture.home.env, stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 15_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);

  expect(stderr).toBe("");
  expect(code).toBe(0);
  expect(stdout).toBe(answer + "\n");
  // One model call, with the client's prompt.
  expect(fixture.server.requests.length - before).toBe(1);
  expect(JSON.stringify(fixture.server.requests[before].body.messages)).toContain("Hello!");
}, 20_000);
