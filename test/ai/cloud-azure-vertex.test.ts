/**
 * Azure OpenAI and Google Vertex AI through the built binary and the real SDKs
 * (openai's AzureOpenAI, @google/genai in Vertex mode) against the fake LLM server,
 * with pi's variables. What reached the server — path, query, key header, model or
 * deployment name — is the evidence.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeTestHome, runXcsh, type RunResult, type TestHome } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";

let server: FakeLlmServer;
let home: TestHome;

const CLOUD_VARIABLE = /^(AZURE_|GOOGLE_|GCLOUD_|GEMINI_)/;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(() => server.close());
beforeEach(() => {
  home = makeTestHome();
  for (const name of Object.keys(home.env)) if (CLOUD_VARIABLE.test(name)) delete home.env[name];
  server.clearScript();
});
afterEach(() => home.cleanup());

function run(model: string, env: Record<string, string>): Promise<RunResult> {
  return runXcsh(["-p", "Say hi.", "--no-session", "--model", model], { env: { ...home.env, ...env }, timeoutMs: 60_000 });
}

describe("Azure OpenAI", () => {
  const azureEnv = () => ({ AZURE_OPENAI_API_KEY: "azure-key-1", AZURE_OPENAI_BASE_URL: `${server.url}/openai/v1` });

  test("the Responses API at the base URL, api-version v1, the key in api-key", async () => {
    server.enqueue({ content: [{ type: "text", text: "hi from azure" }] });
    const result = await run("azure-openai-responses/gpt-5-mini", azureEnv());
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("hi from azure\n");
    const request = server.requests.at(-1)!;
    expect(request.path).toBe("/openai/v1/responses");
    expect(request.query["api-version"]).toBe("v1");
    expect(request.headers["api-key"]).toBe("azure-key-1");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body.model).toBe("gpt-5-mini");
  });

  test("AZURE_OPENAI_DEPLOYMENT_NAME_MAP names the deployment; AZURE_OPENAI_API_VERSION the version", async () => {
    server.enqueue({ content: [{ type: "text", text: "hi" }] });
    await run("azure-openai-responses/gpt-5-mini", {
      ...azureEnv(),
      AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-5=big, gpt-5-mini=team-small",
      AZURE_OPENAI_API_VERSION: "2025-04-01-preview",
    });
    const request = server.requests.at(-1)!;
    expect(request.body.model).toBe("team-small");
    expect(request.query["api-version"]).toBe("2025-04-01-preview");
  });

  test("a key from auth.json is used like the variable", async () => {
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ "azure-openai-responses": { type: "api_key", key: "azure-stored" } }), { mode: 0o600 });
    server.enqueue({ content: [{ type: "text", text: "hi" }] });
    await run("azure-openai-responses/gpt-5-mini", { AZURE_OPENAI_BASE_URL: `${server.url}/openai/v1` });
    expect(server.requests.at(-1)!.headers["api-key"]).toBe("azure-stored");
  });

  test("the env of auth.json's entry gives the endpoint and deployment over the process's, and stays out of the bash tool's environment", async () => {
    const env = { AZURE_OPENAI_BASE_URL: `${server.url}/openai/v1`, AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-5-mini=deployment-from-auth-json" };
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ "azure-openai-responses": { type: "api_key", key: "azure-stored", env } }), { mode: 0o600 });
    server.enqueue({ content: [{ type: "toolCall", name: "bash", arguments: { command: "env" } }] }, { content: [{ type: "text", text: "done" }] });
    const before = server.requests.length;
    // The process's own endpoint is a closed port: reaching the fake server proves auth.json's won.
    const result = await run("azure-openai-responses/gpt-5-mini", { AZURE_OPENAI_BASE_URL: "http://127.0.0.1:9/openai/v1" });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("done\n");
    const [first, second] = server.requests.slice(before);
    expect(first.path).toBe("/openai/v1/responses");
    expect(first.headers["api-key"]).toBe("azure-stored");
    expect(first.body.model).toBe("deployment-from-auth-json");
    expect(second.body.model).toBe("deployment-from-auth-json");
    // What `env` printed through the bash tool: the process's own value, none of auth.json's.
    const toolOutput = JSON.stringify(second.body.input.filter((item: { type?: string }) => item.type === "function_call_output"));
    expect(toolOutput).toContain("HOME=");
    expect(toolOutput).toContain("AZURE_OPENAI_BASE_URL=http://127.0.0.1:9/openai/v1");
    expect(toolOutput).not.toContain(server.url);
    expect(toolOutput).not.toContain("deployment-from-auth-json");
  });

  test("a compaction's summary request goes where auth.json's env says, as the turns do", async () => {
    const env = { AZURE_OPENAI_BASE_URL: `${server.url}/openai/v1`, AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-5-mini=deployment-from-auth-json" };
    writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ "azure-openai-responses": { type: "api_key", key: "azure-stored", env } }), { mode: 0o600 });
    const rpc = startRpc({ env: home.env, cwd: home.home, args: ["--model", "azure-openai-responses/gpt-5-mini", "--no-session"] });
    try {
      for (const message of ["one", "two"]) {
        server.enqueue({ content: [{ type: "text", text: "answer ".repeat(400) }] });
        const mark = rpc.mark();
        expect((await rpc.request({ type: "prompt", message })).success).toBe(true);
        await rpc.waitForEvent("agent_end", undefined, 20_000, mark);
      }
      server.enqueue({ content: [{ type: "text", text: "THE SUMMARY" }] });
      const before = server.requests.length;
      const response = await rpc.request({ type: "compact", keepRecentTokens: 100 }, 20_000);
      expect(response.error).toBeUndefined();
      expect(response.data.summary).toContain("THE SUMMARY");
      const summaryRequest = server.requests[before];
      expect(summaryRequest.path).toBe("/openai/v1/responses");
      expect(summaryRequest.body.model).toBe("deployment-from-auth-json");
    } finally {
      await rpc.close();
    }
  });

  test("without an endpoint, the error names the variables to set", async () => {
    const before = server.requests.length;
    const result = await run("azure-openai-responses/gpt-5-mini", { AZURE_OPENAI_API_KEY: "azure-key-1" });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("AZURE_OPENAI_BASE_URL");
    expect(result.stderr).toContain("AZURE_OPENAI_RESOURCE_NAME");
    expect(server.requests.length).toBe(before);
  });

  test("without a key, the error names AZURE_OPENAI_API_KEY", async () => {
    const result = await run("azure-openai-responses/gpt-5-mini", { AZURE_OPENAI_BASE_URL: `${server.url}/openai/v1` });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain("AZURE_OPENAI_API_KEY");
  });
});

describe("Google Vertex AI", () => {
  beforeEach(() => home.writeModelsJson({ providers: { "google-vertex": { baseUrl: server.url } } }));

  test("GOOGLE_CLOUD_API_KEY: Vertex's express endpoint for the model, the key in x-goog-api-key", async () => {
    server.enqueue({ content: [{ type: "text", text: "hi from vertex" }] });
    // A project in the environment does not turn an API key into a project request (as in pi).
    const result = await run("google-vertex/gemini-2.5-pro", { GOOGLE_CLOUD_API_KEY: "vertex-key-1", GOOGLE_CLOUD_PROJECT: "proj-1" });
    expect(result.stderr).toBe("");
    expect(result.stdout).toBe("hi from vertex\n");
    const request = server.requests.at(-1)!;
    expect(request.path).toBe("/v1/publishers/google/models/gemini-2.5-pro:streamGenerateContent");
    expect(request.headers["x-goog-api-key"]).toBe("vertex-key-1");
  });

  /**
   * An external-account credential file names its own token endpoint: a local one here.
   * `use` gets the file's path; the token requests' bodies are returned.
   */
  async function withAdcFile(use: (credentials: string) => Promise<void>): Promise<string[]> {
    const tokens: string[] = [];
    const sts = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(req) {
        tokens.push(await req.text());
        return Response.json({ access_token: "ya29.adc-token", issued_token_type: "urn:ietf:params:oauth:token-type:access_token", token_type: "Bearer", expires_in: 3600 });
      },
    });
    try {
      const subject = join(home.home, "subject-token");
      writeFileSync(subject, "subject-token-value");
      const credentials = join(home.home, "adc.json");
      writeFileSync(
        credentials,
        JSON.stringify({
          type: "external_account",
          audience: "//iam.googleapis.com/projects/1/locations/global/workloadIdentityPools/pool/providers/provider",
          subject_token_type: "urn:ietf:params:oauth:token-type:jwt",
          token_url: `http://127.0.0.1:${sts.port}/v1/token`,
          credential_source: { file: subject },
        }),
      );
      await use(credentials);
      return tokens;
    } finally {
      await sts.stop(true);
    }
  }

  test("Application Default Credentials: the project and location path, a token from the credential file's token endpoint", async () => {
    const tokens = await withAdcFile(async (credentials) => {
      server.enqueue({ content: [{ type: "text", text: "hi via adc" }] });
      const result = await run("google-vertex/gemini-2.5-flash", {
        GOOGLE_APPLICATION_CREDENTIALS: credentials,
        GOOGLE_CLOUD_PROJECT: "proj-7",
        GOOGLE_CLOUD_LOCATION: "europe-west4",
      });
      expect(result.stdout).toBe("hi via adc\n");
      const request = server.requests.at(-1)!;
      expect(request.path).toBe("/v1/projects/proj-7/locations/europe-west4/publishers/google/models/gemini-2.5-flash:streamGenerateContent");
      expect(request.headers.authorization).toBe("Bearer ya29.adc-token");
    });
    expect(tokens.join("")).toContain("subject-token-value");
  });

  test("the project, location and credential file in the env of auth.json's entry (no key) reach Vertex through ADC", async () => {
    const tokens = await withAdcFile(async (credentials) => {
      const env = { GOOGLE_CLOUD_PROJECT: "proj-from-auth", GOOGLE_CLOUD_LOCATION: "asia-east1", GOOGLE_APPLICATION_CREDENTIALS: credentials };
      writeFileSync(join(home.agentDir, "auth.json"), JSON.stringify({ "google-vertex": { type: "api_key", env } }), { mode: 0o600 });
      const listed = await runXcsh(["--list-models", "gemini-2.5-flash"], { env: home.env });
      expect(listed.stdout).toMatch(/^google-vertex\s+gemini-2\.5-flash\s.*\syes$/m);
      server.enqueue({ content: [{ type: "text", text: "hi via auth.json" }] });
      // The process's own project loses to the entry's.
      const result = await run("google-vertex/gemini-2.5-flash", { GOOGLE_CLOUD_PROJECT: "proj-of-the-process" });
      expect(result.stderr).toBe("");
      expect(result.stdout).toBe("hi via auth.json\n");
      const request = server.requests.at(-1)!;
      expect(request.path).toBe("/v1/projects/proj-from-auth/locations/asia-east1/publishers/google/models/gemini-2.5-flash:streamGenerateContent");
      expect(request.headers.authorization).toBe("Bearer ya29.adc-token");
    });
    expect(tokens.length).toBeGreaterThan(0);
  });

  test("without a key or a project and location, the error names what to set", async () => {
    const result = await run("google-vertex/gemini-2.5-pro", {});
    expect(result.exitCode).toBe(3);
    for (const name of ["GOOGLE_CLOUD_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"]) expect(result.stderr).toContain(name);
  });

  test("--list-models shows Vertex's and Azure's models with whether a credential is set", async () => {
    const listed = await runXcsh(["--list-models", "gemini-2.5-pro"], { env: { ...home.env, GOOGLE_CLOUD_API_KEY: "k" } });
    expect(listed.stdout).toMatch(/^google-vertex\s+gemini-2\.5-pro\s.*\syes$/m);
    const azure = await runXcsh(["--list-models", "azure-openai-responses"], { env: home.env });
    expect(azure.stdout).toMatch(/^azure-openai-responses\s+gpt-5\s.*\sno$/m);
  });
});
