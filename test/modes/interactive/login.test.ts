/**
 * /login and /logout as a person uses them: the built binary in tmux, its sign-in
 * flows pointed at a fake GitHub (device code, Copilot token), the fake LLM server
 * behind the session. What counts is what shows on screen, what lands in auth.json
 * (and with which file mode), and which models /model offers afterwards.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { CHATGPT_ACCOUNT, fakeOAuthEnv, GITHUB_TOKEN, startFakeOAuth, USER_CODE, type FakeOAuth } from "../../auth/fake-oauth.ts";
import { withPane, type Fixture } from "./fixture.ts";
import type { XcshPane } from "./tmux.ts";

let oauth: FakeOAuth;
beforeEach(() => {
  oauth = startFakeOAuth();
});
afterEach(async () => {
  await oauth.close();
});

/** The sign-in flows (and the Copilot API's model list) at the fake, with polling "seconds" of 60 ms. */
const env = () => fakeOAuthEnv(oauth, { XCSH_TEST_OAUTH_SECOND_MS: "60", XCSH_TEST_OAUTH_COPILOT_API_URL: oauth.url });

/** A line typed and submitted in one write, as a fast typist or a paste would arrive. */
function enter(pane: XcshPane, text: string): void {
  pane.tmux(["send-keys", "-t", "main", "-l", `${text}\r`]);
}

const authPath = ({ fake }: Fixture) => join(fake.home.agentDir, "auth.json");
const authJson = (fixture: Fixture) => JSON.parse(readFileSync(authPath(fixture), "utf8"));
const fileMode = (fixture: Fixture) => statSync(authPath(fixture)).mode & 0o777;

/** The person enters the code at the address the transcript shows. */
async function approveDeviceCode(pane: XcshPane): Promise<void> {
  const screen = await pane.waitFor(/open (\S+) and enter the code (\S+)/);
  const [, address, code] = /open (\S+) and enter the code (\S+)/.exec(screen)!;
  expect(code).toBe(USER_CODE);
  await fetch(address!, { method: "POST", body: new URLSearchParams({ user_code: code! }) });
}

describe("/login", () => {
  test("the picker's GitHub Copilot runs the device flow; the sign-in lands in auth.json (0600) and /model offers Copilot's models", async () => {
    // Without the account's model list (404), every Copilot model is offered.
    await withPane(
      async (fixture) => {
        const { pane } = fixture;
        enter(pane, "/model");
        await pane.waitFor("Select a model");
        expect(pane.screen()).not.toContain("github-copilot/");
        pane.keys("Escape");
        await pane.waitFor((screen) => !screen.includes("Select a model"));

        enter(pane, "/login");
        await pane.waitFor("Sign in or store an API key");
        expect(pane.screen()).toContain("OpenAI Codex");
        enter(pane, "copilot");
        await pane.waitFor("Enterprise");
        pane.keys("Enter"); // blank: github.com
        await approveDeviceCode(pane);
        const screen = await pane.waitFor("✓ Signed in to GitHub Copilot");
        expect(screen).toMatch(/8 GitHub Copilot models to choose from with \/model/);

        const stored = authJson(fixture)["github-copilot"];
        expect(stored).toMatchObject({ type: "oauth", refresh: GITHUB_TOKEN, access: oauth.copilotTokensIssued[0] });
        expect(stored.enterpriseUrl).toBeUndefined();
        expect(fileMode(fixture)).toBe(0o600);

        // The same session offers the new models, without a restart.
        enter(pane, "/model");
        await pane.waitFor("github-copilot/claude-sonnet-4.6");
        enter(pane, "gpt-5-mini");
        await pane.waitFor("Model: github-copilot/gpt-5-mini");
      },
      { env: env() },
    );
  });

  test("Esc while the device code waits cancels the sign-in: nothing is stored and the editor is back", async () => {
    await withPane(
      async (fixture) => {
        const { pane } = fixture;
        enter(pane, "/login github-copilot");
        await pane.waitFor("Enterprise");
        pane.keys("Enter");
        await pane.waitFor(`enter the code ${USER_CODE}`);
        await pane.waitFor("esc cancel");
        pane.keys("Escape");
        await pane.waitFor("Sign-in cancelled");
        await Bun.sleep(200); // a poll sent just before the cancel may still be arriving
        const polls = oauth.devicePolls.length;
        await Bun.sleep(400); // several polling intervals: none may follow the cancel
        expect(oauth.devicePolls.length).toBe(polls);
        expect(existsSync(authPath(fixture))).toBe(false);
        pane.type("still here");
        await pane.waitFor("still here");
      },
      { env: env() },
    );
  });

  test("the account's model list from Copilot's /models: /model offers only the models the account may pick", async () => {
    oauth.copilotModels = {
      data: [
        { id: "gpt-5-mini", model_picker_enabled: true, policy: { state: "enabled" } },
        { id: "claude-sonnet-4.6", model_picker_enabled: true, policy: { state: "disabled" } },
        { id: "grok-4.5", model_picker_enabled: true },
        { id: "text-embedding-3-small", model_picker_enabled: false },
        { id: "some-model-xcsh-does-not-know", model_picker_enabled: true },
      ],
    };
    await withPane(
      async (fixture) => {
        const { pane } = fixture;
        enter(pane, "/login github-copilot");
        await pane.waitFor("Enterprise");
        pane.keys("Enter");
        await approveDeviceCode(pane);
        await pane.waitFor(/✓ Signed in to GitHub Copilot\s+2 GitHub Copilot models to choose from/);
        // Asked with the new Copilot token.
        expect(oauth.copilotModelsRequests).toEqual([`Bearer ${oauth.copilotTokensIssued[0]}`]);
        expect(authJson(fixture)["github-copilot"].availableModelIds).toEqual(["gpt-5-mini", "grok-4.5", "some-model-xcsh-does-not-know"]);
        enter(pane, "/model");
        const list = await pane.waitFor("github-copilot/gpt-5-mini");
        expect(list).toContain("github-copilot/grok-4.5");
        expect(list).not.toContain("claude-sonnet-4.6");
      },
      { env: env() },
    );
  });

  test("OpenAI Codex with the callback port taken: the address the browser ended on is pasted into the panel", async () => {
    const busy = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("someone else") });
    try {
      await withPane(
        async (fixture) => {
          const { pane } = fixture;
          enter(pane, "/login openai-codex");
          const screen = await pane.waitFor(/Port \d+ is in use/);
          // The authorization address, whole on this wide screen: its state and PKCE challenge.
          const authorize = new URL(/(http:\/\/127\.0\.0\.1:\d+\/oauth\/authorize\?\S+)/.exec(screen)![1]!);
          oauth.expectedChallenge = authorize.searchParams.get("code_challenge")!;
          const state = authorize.searchParams.get("state")!;
          await pane.waitFor("address:");
          // A stale tab's address first: refused, and the sign-in goes on waiting.
          enter(pane, `http://localhost:${busy.port}/auth/callback?code=auth-code-1&state=not-this-one`);
          await pane.waitFor("belongs to another sign-in");
          enter(pane, `http://localhost:${busy.port}/auth/callback?code=auth-code-1&state=${state}`);
          await pane.waitFor("✓ Signed in to OpenAI Codex");
          expect(authJson(fixture)["openai-codex"]).toMatchObject({ type: "oauth", access: oauth.openaiAccessTokens[0], accountId: CHATGPT_ACCOUNT });
          expect(fileMode(fixture)).toBe(0o600);
          enter(pane, "/model");
          await pane.waitFor("openai-codex/gpt-5.5");
        },
        { env: { ...env(), XCSH_TEST_OAUTH_CALLBACK_PORT: String(busy.port) }, width: 480 },
      );
    } finally {
      await busy.stop(true);
    }
  });

  test("a GitHub Enterprise domain: the device flow and the Copilot token come from that server, and the domain is kept for refreshes", async () => {
    const port = new URL(oauth.url).port;
    await withPane(
      async (fixture) => {
        const { pane } = fixture;
        enter(pane, "/login github-copilot");
        await pane.waitFor("Enterprise");
        enter(pane, "not a domain");
        await pane.waitFor('✗ Sign-in to GitHub Copilot failed "not a domain" is not a GitHub Enterprise domain');
        expect(oauth.hostsAsked).toEqual([]);
        enter(pane, "/login github-copilot");
        await pane.waitFor("Enterprise");
        enter(pane, `https://localhost:${port}/`);
        await approveDeviceCode(pane);
        await pane.waitFor("✓ Signed in to GitHub Copilot");
        expect(oauth.hostsAsked.find((asked) => asked.path === "/login/device/code")?.host).toBe(`localhost:${port}`);
        expect(oauth.hostsAsked.find((asked) => asked.path === "/copilot_internal/v2/token")?.host).toBe(`api.localhost:${port}`);
        expect(authJson(fixture)["github-copilot"]).toMatchObject({ type: "oauth", enterpriseUrl: `localhost:${port}` });
      },
      // No github.com overrides: only the Enterprise domain may lead to the fake (over HTTP, a test-only switch).
      { env: { XCSH_TEST_OAUTH_SECOND_MS: "60", XCSH_TEST_OAUTH_ENTERPRISE_SCHEME: "http", XCSH_TEST_OAUTH_COPILOT_API_URL: oauth.url } },
    );
  });

  test("an API key is typed into a masked field, never shown, stored 0600; /logout removes it and its models go", async () => {
    const secret = "gsk-test-SECRET-4242";
    await withPane(
      async (fixture) => {
        const { pane } = fixture;
        enter(pane, "/login groq");
        await pane.waitFor("API key for Groq");
        expect(pane.screen()).toContain("GROQ_API_KEY");
        pane.type(secret);
        const typed = await pane.waitFor("•".repeat(secret.length));
        expect(typed).not.toContain("SECRET");
        pane.keys("Enter");
        const stored = await pane.waitFor(/✓ Stored the API key for Groq\s+\d+ Groq models to choose from with \/model/);
        expect(stored).not.toContain("SECRET");
        expect(authJson(fixture).groq).toEqual({ type: "api_key", key: secret });
        expect(fileMode(fixture)).toBe(0o600);

        enter(pane, "/model");
        await pane.waitFor("Select a model");
        pane.type("groq/");
        await pane.waitFor(/→ groq\//);
        pane.keys("Escape");
        await pane.waitFor((screen) => !screen.includes("Select a model"));

        enter(pane, "/logout");
        await pane.waitFor("Remove a stored credential");
        await pane.waitFor("Groq (groq)");
        pane.keys("Enter");
        await pane.waitFor("Removed the credential of groq");
        expect(authJson(fixture).groq).toBeUndefined();
        expect(pane.screen()).not.toContain("SECRET");

        enter(pane, "/model");
        await pane.waitFor("Select a model");
        expect(pane.screen()).not.toContain("groq/");
      },
      { env: env() },
    );
  });

  test("Esc in the key field stores nothing; an unknown provider is named; /logout with nothing stored says so, not as an error", async () => {
    await withPane(
      async (fixture) => {
        const { pane } = fixture;
        enter(pane, "/login mistral");
        await pane.waitFor("API key for Mistral");
        pane.type("abc");
        pane.keys("Escape");
        await pane.waitFor("Login cancelled");
        expect(existsSync(authPath(fixture))).toBe(false);
        enter(pane, "/login nosuchprovider");
        await pane.waitFor('✗ Unknown provider "nosuchprovider"');
        // A key typed after the name is refused, and not shown back.
        enter(pane, "/login groq gsk-TYPED-IN-THE-WRONG-PLACE");
        const refused = await pane.waitFor("/login takes only a provider's name");
        expect(refused).not.toContain("TYPED-IN-THE-WRONG-PLACE");
        expect(existsSync(authPath(fixture))).toBe(false);
        enter(pane, "/logout");
        await pane.waitFor("No credential is stored in");
        // Naming a provider with nothing stored is said plainly, not shown as a failure.
        enter(pane, "/logout groq");
        const nothing = await pane.waitFor("No credential of groq is stored: nothing to remove");
        expect(nothing).not.toContain("✗ No credential");
        enter(pane, "/login anthropic");
        await pane.waitFor("does not sign in with a Claude subscription");
        pane.keys("Escape");
      },
      { env: env() },
    );
  });

  test("/help and the / typeahead list /login and /logout", async () => {
    await withPane(async ({ pane }) => {
      enter(pane, "/help");
      const help = await pane.waitFor("/logout");
      expect(help).toMatch(/\/login \[provider\]\s+Sign in/);
      pane.type("/log");
      await pane.waitFor(/login[\s\S]*logout/);
    });
  });
});
