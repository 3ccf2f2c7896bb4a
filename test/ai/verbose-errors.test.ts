/**
 * `--verbose`: a provider error reads as its message; with --verbose the raw body the
 * provider sent is shown too (stderr in print mode, a dim line under the error in the
 * terminal UI), with credentials redacted: the key in use, any credential variable's
 * value, and key- or token-shaped strings. It also shows the start-up header that
 * settings' quietStartup hides (pi's --verbose). Through the built binary against the
 * fake LLM server.
 */
import { describe, expect, test } from "bun:test";
import { makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { send, withPane } from "../modes/interactive/fixture.ts";

/** A proxy echoing the caller's credentials back in its 401's debug part; the message masks the key, as OpenAI's does. */
const PROXY_TOKEN = "proxy-secret-value-42";
const LEAKY_401 = JSON.stringify({
  error: {
    message: "Incorrect API key provided: sk-live-***************7890.",
    key: "sk-live-abcdef1234567890",
    type: "invalid_request_error",
    debug: { authorization: `Bearer ${PROXY_TOKEN}`, upstream: "gateway-eu-3" },
  },
});

describe("--verbose in print mode", () => {
  test("a provider error shows its message only; with --verbose also the raw body, credentials redacted", async () => {
    const fake = await makeFakeModelHome();
    try {
      const env = { ...fake.home.env, PROXY_TOKEN };
      const answer401 = () => fake.server.enqueue({ type: "raw", status: 401, body: LEAKY_401 });

      answer401();
      const quiet = await runXcsh(["-p", "hi", "--model", "fake/m"], { env, timeoutMs: 30_000 });
      expect(quiet.exitCode).not.toBe(0);
      expect(quiet.stderr).toContain("401");
      expect(quiet.stderr).toContain("Incorrect API key provided");
      expect(quiet.stderr).not.toContain("response body");
      expect(quiet.stderr).not.toContain("gateway-eu-3");

      answer401();
      const verbose = await runXcsh(["-p", "hi", "--model", "fake/m", "--verbose"], { env, timeoutMs: 30_000 });
      const bodyLine = verbose.stderr.split("\n").find((line) => line.startsWith("xcsh: response body: "));
      expect(bodyLine).toBeDefined();
      // The body is there (what the provider said, and the detail the message leaves out)…
      expect(bodyLine).toContain('"type":"invalid_request_error"');
      expect(bodyLine).toContain("gateway-eu-3");
      // …but no credential: not the key-shaped string, not the bearer token, not a credential variable's value.
      expect(verbose.stderr).not.toContain("sk-live-abcdef1234567890");
      expect(verbose.stderr).not.toContain(PROXY_TOKEN);
      expect(bodyLine).toContain("[redacted]");
      // stdout stays the answer's (there is none).
      expect(verbose.stdout).toBe("");
    } finally {
      await fake.cleanup();
    }
  });

  test("escape sequences in a provider's error (a hostile proxy) never reach stderr: not in the retry notice, the final error or the body", async () => {
    const fake = await makeFakeModelHome();
    try {
      fake.home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 1 } });
      const hostile = (tag: string) => JSON.stringify({ error: { message: `Overloaded\x1b]52;c;cm0gLXJmIH4=\x07 ${tag}\x1b[2J`, type: "server_error" } });
      fake.server.enqueue({ type: "raw", status: 503, body: hostile("first") }, { type: "raw", status: 400, body: hostile("final") });
      const result = await runXcsh(["-p", "hi", "--model", "fake/m", "--verbose"], { env: fake.home.env, timeoutMs: 30_000 });
      expect(result.exitCode).not.toBe(0);
      // What the provider said is there, as text…
      expect(result.stderr).toContain("retrying in");
      expect(result.stderr).toContain("Overloaded first");
      expect(result.stderr).toContain("Overloaded final");
      // …without a single escape: no OSC 52 clipboard write, no screen clear.
      expect(result.stderr).not.toContain("\x1b");
    } finally {
      await fake.cleanup();
    }
  });

  test("a retried failure shows its body under the retry notice", async () => {
    const fake = await makeFakeModelHome();
    try {
      fake.home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 1 } });
      const body = JSON.stringify({ error: { message: "The engine is currently overloaded.", type: "server_error", code: "overloaded_shard_7" } });
      fake.server.enqueue({ type: "raw", status: 503, body }, { content: [{ type: "text", text: "Recovered." }] });
      const result = await runXcsh(["-p", "hi", "--model", "fake/m", "--verbose"], { env: fake.home.env, timeoutMs: 30_000 });
      expect(result.stdout).toBe("Recovered.\n");
      const lines = result.stderr.split("\n");
      const notice = lines.findIndex((line) => line.includes("retrying in"));
      expect(notice).toBeGreaterThanOrEqual(0);
      expect(lines[notice + 1]).toBe(`xcsh: response body: ${body}`);
    } finally {
      await fake.cleanup();
    }
  });
});

describe("--verbose in the terminal UI", () => {
  test("the raw body is a dim line under the error, redacted; quietStartup's hidden header is drawn", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ type: "raw", status: 400, body: JSON.stringify({ error: { message: "Bad field: tools[3]", type: "invalid_request_error", hint: "shard-91", key: "sk-live-abcdef1234567890" } }) });
        send(pane, "hi");
        const screen = await pane.waitFor("shard-91", 30_000);
        expect(screen).toContain("Bad field: tools[3]");
        expect(screen).not.toContain("sk-live-abcdef1234567890");
        expect(screen).toContain("[redacted]");
        // quietStartup would drop the header; --verbose brings it back.
        expect(screen).toContain("/ commands · @ files");
      },
      { args: ["--verbose"], before: (fake) => fake.home.writeSettings({ quietStartup: true, retry: { enabled: false } }) },
    );
  });

  test("escape sequences in a provider's error (a hostile proxy) never reach the terminal: not in the error line, the body or the retry notice", async () => {
    await withPane(
      async ({ fake, pane }) => {
        const hostile = (tag: string) => JSON.stringify({ error: { message: `Overloaded\x1b]2;PWNED-${tag}\x07 now\x1b[2J`, type: "server_error" } });
        fake.server.enqueue({ type: "raw", status: 503, body: hostile("retry") }, { type: "raw", status: 400, body: hostile("final") });
        send(pane, "hi");
        const screen = await pane.waitFor((text) => text.includes("Overloaded now") && text.includes("Retrying"), 30_000);
        await pane.waitFor((text) => text.split("Overloaded now").length >= 3, 30_000);
        // The --verbose body shows the JSON as sent ("\\u001b]2;…"): text, not an escape.
        expect(screen).toContain("Overloaded now");
        expect(pane.tmux(["display-message", "-p", "#{pane_title}"]).trim()).not.toContain("PWNED");
        expect(pane.screen({ escapes: true })).not.toContain("\x1b]");
      },
      // The retry notice is on screen only while the retry waits (it folds away when the attempt starts): a wait long enough to see it.
      { args: ["--verbose"], before: (fake) => fake.home.writeSettings({ retry: { enabled: true, maxRetries: 1, baseDelayMs: 1500 } }) },
    );
  });

  test("without --verbose the body stays out of the UI", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ type: "raw", status: 400, body: JSON.stringify({ error: { message: "Bad field: tools[3]", type: "invalid_request_error", hint: "shard-91" } }) });
        send(pane, "hi");
        const screen = await pane.waitFor("Bad field: tools[3]", 30_000);
        expect(screen).not.toContain("shard-91");
      },
      { before: (fake) => fake.home.writeSettings({ retry: { enabled: false } }) },
    );
  });
});
