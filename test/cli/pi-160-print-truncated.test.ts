/**
 * pi 1.6.0's -p when the model stops at its output token limit (stopReason "length"):
 * the partial answer is printed on stdout, a warning goes to stderr, and the exit
 * status is 1 — through the built binary against the fake LLM. With tools active the
 * answer is printed at the end, without them it streams; both keep the partial text.
 */
import { afterAll, beforeEach, describe, expect, test } from "bun:test";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

const cut = { content: [{ type: "text" as const, text: "The first half of the answer" }], stopReason: "length" as const };

describe("-p cut at the output limit", () => {
  test("prints the partial text, warns on stderr, exits 1", async () => {
    for (const toolFlags of [[], ["--no-tools"]]) {
      server.enqueue(cut);
      const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", ...toolFlags, "explain"], { env: home.env });
      expect(result.stdout).toBe("The first half of the answer\n");
      expect(result.stderr).toContain("output token limit");
      expect(result.exitCode).toBe(1);
    }
  });

  test("the json envelope says truncated, with the same exit code", async () => {
    server.enqueue(cut);
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--output-format", "json", "explain"], { env: home.env });
    const envelope = JSON.parse(result.stdout);
    expect(envelope.status).toBe("truncated");
    expect(envelope.stopReason).toBe("length");
    expect(result.exitCode).toBe(1);
  });

  test("a complete answer still exits 0 with nothing on stderr", async () => {
    server.enqueue({ content: [{ type: "text", text: "All of it" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "explain"], { env: home.env });
    expect([result.stdout, result.stderr, result.exitCode]).toEqual(["All of it\n", "", 0]);
  });
});
