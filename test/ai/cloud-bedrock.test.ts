/**
 * Amazon Bedrock through the built binary, against a fake Bedrock runtime that checks
 * credentials as Bedrock does (test/support/fake-llm/bedrock.ts recomputes every SigV4
 * signature). pi's variables: access keys with a session token, a named profile from
 * ~/.aws, a Bedrock API key as a bearer token, the region from AWS_REGION or the
 * profile; a reply with text and a tool call runs the tool and completes the turn.
 * models.json points amazon-bedrock's baseUrl at the fake server, as a proxy would.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh, type RunResult, type TestHome } from "../support/cli.ts";
import { bedrockException, encodeEventMessage, startFakeBedrock, type FakeBedrockServer } from "../support/fake-llm/bedrock.ts";

const MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0";
const MODEL = ["--model", `amazon-bedrock/${MODEL_ID}`];
const KEY_ID = "AKIDXCSHTEST";
const SECRET = "wJalr/XCSH+test/SECRET";
const PROFILE_KEY_ID = "AKIDPROFILE";
const PROFILE_SECRET = "profile/secret+key";

let server: FakeBedrockServer;
let home: TestHome;

beforeAll(() => {
  ensureBinary();
  server = startFakeBedrock({ accessKeys: { [KEY_ID]: SECRET, [PROFILE_KEY_ID]: PROFILE_SECRET }, bearerTokens: ["bedrock-api-key-1"] });
});
afterAll(() => server.close());
beforeEach(() => {
  home = makeTestHome();
  // A developer's own AWS set-up must not change what these tests see.
  for (const name of Object.keys(home.env)) if (name.startsWith("AWS_")) delete home.env[name];
  home.writeModelsJson({ providers: { "amazon-bedrock": { baseUrl: server.url } } });
  server.clearScript();
});
afterEach(() => home.cleanup());

function run(env: Record<string, string>, text = "Say hi.", args: string[] = []): Promise<RunResult> {
  return runXcsh(["-p", text, "--no-session", ...MODEL, ...args], { env: { ...home.env, ...env }, timeoutMs: 60_000 });
}

const ACCESS_KEYS = { AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET };

describe("Amazon Bedrock", () => {
  test("access keys and a session token: a verified SigV4 signature for AWS_REGION, and a tool call that completes the turn", async () => {
    writeFileSync(join(home.home, "notes.txt"), "the notes say 42\n");
    server.enqueue({ content: [{ type: "text", text: "Reading." }, { type: "toolCall", name: "read", arguments: { path: "notes.txt" } }] });
    server.enqueue({ content: [{ type: "text", text: "They say 42." }] });
    const before = server.requests.length;
    const result = await run({ ...ACCESS_KEYS, AWS_SESSION_TOKEN: "session-token-7", AWS_REGION: "eu-west-3" }, "What do the notes say?");
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("They say 42.\n");
    expect(result.exitCode).toBe(0);

    const [first, second] = server.requests.slice(before);
    expect(first.path).toBe("/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream");
    expect(first.auth).toBe("sigv4");
    expect(first.scope).toEqual({ region: "eu-west-3", service: "bedrock", accessKeyId: KEY_ID });
    expect(first.headers["x-amz-security-token"]).toBe("session-token-7");
    expect(first.headers.authorization).toContain("x-amz-security-token");
    expect(first.body.system[0].text).toContain("xcsh");
    expect(first.body.messages).toEqual([{ role: "user", content: [{ text: "What do the notes say?" }, { cachePoint: { type: "default" } }] }]);
    expect(first.body.toolConfig.tools.map((tool: any) => tool.toolSpec.name)).toContain("read");
    expect(first.body.toolConfig.tools[0].toolSpec.inputSchema.json.type).toBe("object");
    expect(first.body.inferenceConfig.maxTokens).toBeGreaterThan(0);

    // The second request carries the call and its result, each in its own turn.
    expect(second.auth).toBe("sigv4");
    const [, assistant, results] = second.body.messages;
    expect(assistant.role).toBe("assistant");
    const toolUse = assistant.content.find((block: any) => block.toolUse).toolUse;
    expect(toolUse).toMatchObject({ name: "read", input: { path: "notes.txt" } });
    expect(results.role).toBe("user");
    const toolResult = results.content.find((block: any) => block.toolResult).toolResult;
    expect(toolResult.toolUseId).toBe(toolUse.toolUseId);
    expect(toolResult.status).toBe("success");
    expect(toolResult.content[0].text).toContain("the notes say 42");
    // Cache points end both user turns: the first where the first request's prompt ended, exactly as it was sent.
    expect(second.body.messages[0]).toEqual(first.body.messages[0]);
    expect(results.content.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(JSON.stringify(second.body).match(/"cachePoint"/g)).toHaveLength(3);
  });

  test("access keys and AWS_REGION in the env of auth.json's entry sign for that region; the process's own AWS settings stay as they are", async () => {
    const env = { AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET, AWS_REGION: "eu-west-1" };
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ "amazon-bedrock": { type: "api_key", env } }), { mode: 0o600 });
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "env" } }] }, { content: [{ type: "text", text: "done" }] });
    const before = server.requests.length;
    // The process has other keys (unknown to the fake: a request signed with them is refused) and another region.
    const result = await run({ AWS_ACCESS_KEY_ID: "AKIDOFTHEPROCESS", AWS_SECRET_ACCESS_KEY: "process-secret", AWS_REGION: "us-east-2" });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("done\n");
    const [first, second] = server.requests.slice(before);
    for (const request of [first, second]) {
      expect(request.auth).toBe("sigv4");
      expect(request.scope).toEqual({ region: "eu-west-1", service: "bedrock", accessKeyId: KEY_ID });
    }
    // What `env` printed through the bash tool: the process's own AWS settings, none of auth.json's.
    const results = second.body.messages.at(-1).content.find((block: any) => block.toolResult).toolResult;
    const printed = JSON.stringify(results.content);
    expect(printed).toContain("AWS_ACCESS_KEY_ID=AKIDOFTHEPROCESS");
    expect(printed).toContain("AWS_REGION=us-east-2");
    expect(printed).not.toContain(KEY_ID);
    expect(printed).not.toContain("eu-west-1");
  });

  test("an auth.json entry whose env holds the credentials counts as configured (--list-models, auth status)", async () => {
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ "amazon-bedrock": { type: "api_key", env: { AWS_PROFILE: "work" } } }), { mode: 0o600 });
    const listed = await runXcsh(["--list-models", "amazon-bedrock"], { env: home.env });
    expect(listed.stdout).toMatch(/amazon-bedrock\s+anthropic\.claude-sonnet-4-5-20250929-v1:0\s.*\syes$/m);
    const status = await runXcsh(["auth", "status", "amazon-bedrock"], { env: home.env });
    expect(status.stdout).toContain("amazon-bedrock: credentials in the env of its auth.json entry");
  });

  test("a signature made with the wrong secret is refused, and the refusal is the turn's error", async () => {
    const result = await run({ AWS_ACCESS_KEY_ID: KEY_ID, AWS_SECRET_ACCESS_KEY: "not-the-secret" });
    expect(server.requests.at(-1)?.auth).toBe("rejected: signature mismatch");
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("403");
    expect(result.stderr).toContain("signature");
  });

  test("AWS_PROFILE: the profile's keys from ~/.aws/credentials and its region from ~/.aws/config win over keys in the environment", async () => {
    mkdirSync(join(home.home, ".aws"));
    writeFileSync(join(home.home, ".aws", "credentials"), `[default]\naws_access_key_id = AKIDOTHER\naws_secret_access_key = other\n\n[work]\naws_access_key_id = ${PROFILE_KEY_ID}\naws_secret_access_key = ${PROFILE_SECRET}\n`);
    writeFileSync(join(home.home, ".aws", "config"), "[profile work]\nregion = ap-southeast-2\n");
    server.enqueue({ content: [{ type: "text", text: "hi from the profile" }] });
    const result = await run({ AWS_PROFILE: "work", ...ACCESS_KEYS });
    expect(result.stdout).toBe("hi from the profile\n");
    const request = server.requests.at(-1)!;
    expect(request.auth).toBe("sigv4");
    expect(request.scope).toEqual({ region: "ap-southeast-2", service: "bedrock", accessKeyId: PROFILE_KEY_ID });
    expect(request.headers["x-amz-security-token"]).toBeUndefined();
  });

  test("AWS_BEARER_TOKEN_BEDROCK: sent as a bearer token, nothing signed", async () => {
    server.enqueue({ content: [{ type: "text", text: "hi with a key" }] });
    const result = await run({ AWS_BEARER_TOKEN_BEDROCK: "bedrock-api-key-1", AWS_DEFAULT_REGION: "us-west-2" });
    expect(result.stdout).toBe("hi with a key\n");
    const request = server.requests.at(-1)!;
    expect(request.auth).toBe("bearer");
    expect(request.headers.authorization).toBe("Bearer bedrock-api-key-1");
    expect(request.headers["x-amz-date"]).toBeUndefined();
  });

  test("without credentials, the error names what to set and nothing is sent", async () => {
    const before = server.requests.length;
    const result = await run({});
    expect(result.exitCode).toBe(3);
    for (const name of ["AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_BEARER_TOKEN_BEDROCK"]) expect(result.stderr).toContain(name);
    expect(server.requests.length).toBe(before);
  });

  test("a profile that names no keys says how to give it some", async () => {
    mkdirSync(join(home.home, ".aws"));
    writeFileSync(join(home.home, ".aws", "config"), "[profile sso]\nsso_session = corp\nregion = us-east-1\n");
    const result = await run({ AWS_PROFILE: "sso" });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain('AWS profile "sso" signs in with AWS SSO');
    expect(result.stderr).toContain("credential_process");
  });

  test("a profile's credential_process supplies the keys", async () => {
    mkdirSync(join(home.home, ".aws"));
    const output = JSON.stringify({ Version: 1, AccessKeyId: PROFILE_KEY_ID, SecretAccessKey: PROFILE_SECRET, SessionToken: "from-process" });
    writeFileSync(join(home.home, ".aws", "config"), `[profile proc]\nregion = eu-central-1\ncredential_process = echo '${output}'\n`);
    server.enqueue({ content: [{ type: "text", text: "hi via process" }] });
    const result = await run({ AWS_PROFILE: "proc" });
    expect(result.stdout).toBe("hi via process\n");
    const request = server.requests.at(-1)!;
    expect(request.auth).toBe("sigv4");
    expect(request.scope?.region).toBe("eu-central-1");
    expect(request.headers["x-amz-security-token"]).toBe("from-process");
  });

  test("Claude's thinking: a budget in the request, the reasoning and its signature sent back on the next step", async () => {
    writeFileSync(join(home.home, "notes.txt"), "42\n");
    server.enqueue({
      content: [
        { type: "thinking", thinking: "I should read the notes.", signature: "sig-reasoning-1" },
        { type: "toolCall", name: "read", arguments: { path: "notes.txt" } },
      ],
    });
    server.enqueue({ content: [{ type: "text", text: "42." }] });
    const before = server.requests.length;
    const result = await run(ACCESS_KEYS, "Read the notes.", ["--thinking", "high"]);
    expect(result.stdout).toBe("42.\n");
    const [first, second] = server.requests.slice(before);
    expect(first.body.additionalModelRequestFields.thinking).toEqual({ type: "enabled", budget_tokens: expect.any(Number) });
    expect(first.body.additionalModelRequestFields.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
    expect(first.body.inferenceConfig.temperature).toBeUndefined();
    const assistant = second.body.messages[1];
    expect(assistant.content[0]).toEqual({ reasoningContent: { reasoningText: { text: "I should read the notes.", signature: "sig-reasoning-1" } } });
  });

  test("what a Bedrock model takes is its data: models.json turns Claude's cache points and thinking off, or on for a model of its own", async () => {
    server.enqueue({ content: [{ type: "text", text: "a" }] }, { content: [{ type: "text", text: "b" }] });
    home.writeModelsJson({
      providers: {
        "amazon-bedrock": {
          baseUrl: server.url,
          modelOverrides: { [MODEL_ID]: { compat: { supportsCachePoints: false, supportsBudgetThinking: false } } },
          models: [{ id: "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/house", reasoning: true, compat: { supportsCachePoints: true, supportsBudgetThinking: true } }],
        },
      },
    });
    const before = server.requests.length;
    await run(ACCESS_KEYS, "hi", ["--thinking", "high"]);
    const claude = server.requests[before]!;
    expect(JSON.stringify(claude.body)).not.toContain("cachePoint");
    expect(claude.body.additionalModelRequestFields).toBeUndefined();

    await runXcsh(["-p", "hi", "--no-session", "--model", "amazon-bedrock/arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/house", "--thinking", "high"], {
      env: { ...home.env, ...ACCESS_KEYS },
      timeoutMs: 60_000,
    });
    const profile = server.requests[before + 1]!;
    expect(profile.body.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
    expect(profile.body.additionalModelRequestFields.thinking).toEqual({ type: "enabled", budget_tokens: expect.any(Number) });
  });

  test("an exception in the middle of the stream fails the attempt with its type and message", async () => {
    const event = (type: string, payload: unknown) => encodeEventMessage({ ":event-type": type, ":message-type": "event", ":content-type": "application/json" }, payload);
    server.enqueueFrames([
      event("messageStart", { role: "assistant" }),
      event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Partial" } }),
      bedrockException("throttlingException", "Too many requests, please wait"),
    ]);
    server.enqueue({ content: [{ type: "text", text: "Whole answer." }] });
    const before = server.requests.length;
    const result = await run(ACCESS_KEYS);
    // Throttling is worth another try: the session says so and retries, visibly.
    expect(result.stderr).toContain("throttlingException: Too many requests, please wait — retrying");
    expect(result.stdout).toBe("Whole answer.\n");
    expect(server.requests.length - before).toBe(2);
  });

  test("a 429 with retry-after is retried after the wait Bedrock asked for, and reads as a rate limit with the body's message", async () => {
    home.writeSettings({ retry: { baseDelayMs: 10, maxRetries: 1 } });
    const body = JSON.stringify({ message: "Too many requests, please wait before trying again." });
    server.enqueue(
      { type: "error", status: 429, body: JSON.parse(body), headers: { "retry-after": "1", "x-amzn-ErrorType": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/" } },
      { content: [{ type: "text", text: "After the wait." }] },
    );
    const before = server.requests.length;
    const result = await run(ACCESS_KEYS, "Say hi.", ["--mode", "json"]);
    const frames = result.stdout.split("\n").filter(Boolean).map((line) => JSON.parse(line));
    const retry = frames.find((frame) => frame.type === "auto_retry_start");
    expect(retry).toMatchObject({ delayMs: 1000, errorMessage: "429 rate limited by amazon-bedrock: Too many requests, please wait before trying again." });
    const failed = frames.find((frame) => frame.type === "message_end" && frame.message.stopReason === "error").message;
    expect(failed.errorBody).toBe(body);
    const [first, second] = server.requests.slice(before);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(995);
    expect(frames.filter((frame) => frame.type === "message_end" && frame.message.role === "assistant").at(-1).message.content).toEqual([{ type: "text", text: "After the wait." }]);
  });

  test("a 503 reads as the kind AWS names in x-amzn-errortype with the body's message", async () => {
    home.writeSettings({ retry: { enabled: false } });
    server.enqueue({ type: "error", status: 503, body: { message: "Bedrock is unable to process your request." }, headers: { "x-amzn-ErrorType": "ServiceUnavailableException:http://internal.amazon.com/coral/com.amazon.bedrock/" } });
    const result = await run(ACCESS_KEYS);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("503 ServiceUnavailableException: Bedrock is unable to process your request.");
    expect(result.stderr).not.toContain("{");
  });

  test("a stream that stops without messageStop is an error, not a finished answer", async () => {
    const event = (type: string, payload: unknown) => encodeEventMessage({ ":event-type": type, ":message-type": "event", ":content-type": "application/json" }, payload);
    server.enqueueFrames([event("messageStart", { role: "assistant" }), event("contentBlockDelta", { contentBlockIndex: 0, delta: { text: "Half an ans" } })]);
    home.writeSettings({ retry: { enabled: false } });
    const result = await run(ACCESS_KEYS);
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("stream ended before the provider said it finished");
  });

  test("ECS task credentials: fetched from AWS_CONTAINER_CREDENTIALS_FULL_URI with the authorization token", async () => {
    const asked: (string | null)[] = [];
    const agent = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch(req) {
        asked.push(req.headers.get("authorization"));
        return Response.json({ AccessKeyId: PROFILE_KEY_ID, SecretAccessKey: PROFILE_SECRET, Token: "task-session", Expiration: "2099-01-01T00:00:00Z" });
      },
    });
    try {
      server.enqueue({ content: [{ type: "text", text: "hi from the task" }] });
      const result = await run({ AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${agent.port}/creds`, AWS_CONTAINER_AUTHORIZATION_TOKEN: "ecs-auth-1" });
      expect(result.stdout).toBe("hi from the task\n");
      expect(asked).toEqual(["ecs-auth-1"]);
      const request = server.requests.at(-1)!;
      expect(request.auth).toBe("sigv4");
      expect(request.scope?.accessKeyId).toBe(PROFILE_KEY_ID);
      expect(request.headers["x-amz-security-token"]).toBe("task-session");
    } finally {
      await agent.stop(true);
    }
  });

  test("a web identity (IRSA): the token file traded at STS (AWS_ENDPOINT_URL_STS) once, for keys that sign every request while they last", async () => {
    const forms: URLSearchParams[] = [];
    const sts = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        forms.push(new URLSearchParams(await req.text()));
        const xml = `<AssumeRoleWithWebIdentityResponse><AssumeRoleWithWebIdentityResult><Credentials><AccessKeyId>${PROFILE_KEY_ID}</AccessKeyId><SecretAccessKey>${PROFILE_SECRET}</SecretAccessKey><SessionToken>irsa-session</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials></AssumeRoleWithWebIdentityResult></AssumeRoleWithWebIdentityResponse>`;
        return new Response(xml, { headers: { "content-type": "text/xml" } });
      },
    });
    try {
      const tokenFile = join(home.home, "token");
      writeFileSync(tokenFile, "eyJ.web-identity\n");
      writeFileSync(join(home.home, "notes.txt"), "pod notes\n");
      server.enqueue({ content: [{ type: "toolCall", name: "read", arguments: { path: "notes.txt" } }] });
      server.enqueue({ content: [{ type: "text", text: "hi from the pod" }] });
      const before = server.requests.length;
      const result = await run({
        AWS_WEB_IDENTITY_TOKEN_FILE: tokenFile,
        AWS_ROLE_ARN: "arn:aws:iam::123456789012:role/bedrock",
        AWS_ENDPOINT_URL_STS: `http://127.0.0.1:${sts.port}`,
        AWS_REGION: "us-east-2",
      });
      expect(result.stdout).toBe("hi from the pod\n");
      // Two requests, one trip to STS: the keys are good until 2099.
      expect(server.requests.length - before).toBe(2);
      expect(forms.length).toBe(1);
      expect(forms[0].get("Action")).toBe("AssumeRoleWithWebIdentity");
      expect(forms[0].get("RoleArn")).toBe("arn:aws:iam::123456789012:role/bedrock");
      expect(forms[0].get("WebIdentityToken")).toBe("eyJ.web-identity");
      const request = server.requests.at(-1)!;
      expect(request.auth).toBe("sigv4");
      expect(request.scope).toEqual({ region: "us-east-2", service: "bedrock", accessKeyId: PROFILE_KEY_ID });
      expect(request.headers["x-amz-security-token"]).toBe("irsa-session");
    } finally {
      await sts.stop(true);
    }
  });

  test("`xcsh auth status` counts a profile as Bedrock's credential, and says what to set without one", async () => {
    const withProfile = await runXcsh(["auth", "status", "amazon-bedrock"], { env: { ...home.env, AWS_PROFILE: "work" } });
    expect(withProfile.stdout).toContain("amazon-bedrock: the cloud's own credentials in the environment");
    const without = await runXcsh(["auth", "status", "amazon-bedrock"], { env: home.env });
    expect(without.stdout).toContain("AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY");
  });

  test("--list-models shows Bedrock's models, keyed once credentials are set", async () => {
    const without = await runXcsh(["--list-models", "amazon-bedrock"], { env: home.env });
    expect(without.stdout).toMatch(/amazon-bedrock\s+anthropic\.claude-sonnet-4-5-20250929-v1:0\s.*\sno$/m);
    const withKeys = await runXcsh(["--list-models", "amazon-bedrock"], { env: { ...home.env, ...ACCESS_KEYS } });
    expect(withKeys.stdout).toMatch(/amazon-bedrock\s+anthropic\.claude-sonnet-4-5-20250929-v1:0\s.*\syes$/m);
  });
});
