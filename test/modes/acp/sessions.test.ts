/**
 * ACP sessions end to end, with the SDK's client against the built binary and the
 * fake LLM server: initialize, session/new, a prompt with streamed text and a tool
 * call, session/list and session/load of a session written by `-p`, and the
 * errors a client gets for a missing key, a bad cwd, or an unknown session.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../../support/cli.ts";
import { AcpClient, createAcpFixture, type AcpFixture } from "./support/acp-harness.ts";

let fixture: AcpFixture;

beforeAll(async () => {
  fixture = await createAcpFixture();
});
afterEach(() => fixture.fake.server.clearScript());
afterAll(() => fixture.cleanup());

describe("initialize and session/new", () => {
  test("initialize negotiates version 1 and advertises load, images, embedded context and http/sse MCP servers", async () => {
    const client = fixture.spawn();
    const answer = await client.agent.request("initialize", { protocolVersion: 7, clientCapabilities: {} });
    expect(answer.protocolVersion).toBe(1);
    expect(answer.agentCapabilities?.loadSession).toBe(true);
    expect(answer.agentCapabilities?.promptCapabilities).toMatchObject({ image: true, embeddedContext: true });
    expect(answer.agentCapabilities?.mcpCapabilities).toMatchObject({ http: true, sse: true });
    expect(answer.agentInfo?.name).toBe("xcsh");
    expect(await client.close()).toBe(0);
  });

  test("session/new answers with the session id, the four modes and the model list", async () => {
    const client = fixture.spawn();
    const created = await client.start(fixture.cwd);
    expect(created.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(created.modes?.currentModeId).toBe("default");
    expect(created.modes?.availableModes.map((mode) => mode.id)).toEqual(["default", "acceptEdits", "plan", "bypass"]);
    const model = created.configOptions?.find((option) => option.id === "model");
    expect(model).toMatchObject({ type: "select", category: "model", currentValue: "fake/m" });
    await client.close();
  });

  test("a relative or missing cwd is an invalid-params error naming the cwd", async () => {
    const client = fixture.spawn();
    await client.initialize();
    const relative = await client.agent.request("session/new", { cwd: "project", mcpServers: [] }).catch((error) => error);
    expect(relative.code).toBe(-32602);
    expect(relative.message).toContain("absolute");
    const missing = await client.agent.request("session/new", { cwd: join(fixture.cwd, "nope"), mcpServers: [] }).catch((error) => error);
    expect(missing.code).toBe(-32602);
    expect(missing.message).toContain("nope");
    await client.close();
  });

  test("without an API key, session/new is an auth error that names the variable to set", async () => {
    const env = { ...fixture.env, XCSH_CODING_AGENT_DIR: join(fixture.fake.home.home, "empty-agent-dir") };
    const client = new AcpClient(env, fixture.cwd, { args: ["--provider", "anthropic"] });
    try {
      await client.initialize();
      const error = await client.agent.request("session/new", { cwd: fixture.cwd, mcpServers: [] }).catch((failure) => failure);
      expect(error.code).toBe(-32000);
      expect(error.message).toContain("ANTHROPIC_API_KEY");
    } finally {
      expect(await client.close()).toBe(0);
    }
  });

  test("an MCP server that cannot start is reported, and the session works without it", async () => {
    const client = fixture.spawn();
    await client.initialize();
    const created = await client.agent.request("session/new", {
      cwd: fixture.cwd,
      mcpServers: [{ name: "files", command: "/bin/true", args: [], env: [] }],
    });
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "still here" }] });
    expect((await client.prompt(created.sessionId, "hi")).stopReason).toBe("end_turn");
    expect(client.stderr).toContain('MCP server "files"');
    await client.close();
  });
});

describe("a prompt turn", () => {
  test("text streams as agent_message_chunk and thinking as agent_thought_chunk; the turn ends with end_turn", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "thinking", thinking: "let me think" }, { type: "text", text: "Hello from a streamed answer" }], chunkSize: 5 });
    const response = await client.prompt(sessionId, "say hello");
    expect(response.stopReason).toBe("end_turn");
    const chunks = client.ofKind(sessionId, "agent_message_chunk");
    expect(chunks.length).toBeGreaterThan(1);
    expect(client.agentText(sessionId)).toBe("Hello from a streamed answer");
    expect(client.ofKind(sessionId, "agent_thought_chunk").length).toBeGreaterThan(0);
    await client.close();
  });

  test("a read tool call is announced with its kind and location, then completed with the file's text", async () => {
    writeFileSync(join(fixture.cwd, "notes.txt"), "the secret is 42\n");
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue(
      { content: [{ type: "toolCall", id: "call_read", name: "read", arguments: { path: "notes.txt" } }] },
      { content: [{ type: "text", text: "It is 42." }] },
    );
    expect((await client.prompt(sessionId, "what is the secret?")).stopReason).toBe("end_turn");
    const call = client.ofKind(sessionId, "tool_call").find((update) => update.toolCallId === "call_read");
    expect(call).toMatchObject({ kind: "read", status: "pending", title: "Read notes.txt", locations: [{ path: join(fixture.cwd, "notes.txt") }] });
    const final = client.ofKind(sessionId, "tool_call_update").filter((update) => update.toolCallId === "call_read").at(-1);
    expect(final?.status).toBe("completed");
    expect(JSON.stringify(final?.content)).toContain("the secret is 42");
    // Reading needs no permission.
    expect(client.permissionRequests).toHaveLength(0);
    expect(client.agentText(sessionId)).toBe("It is 42.");
    await client.close();
  });

  test("a stream cut at the token limit ends with max_tokens", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "cut o" }], stopReason: "length" });
    expect((await client.prompt(sessionId, "long answer")).stopReason).toBe("max_tokens");
    await client.close();
  });

  test("a provider failure is a JSON-RPC error with the provider's message, and the session keeps serving", async () => {
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ type: "error", status: 400, message: "context is malformed" });
    const error = await client.prompt(sessionId, "hi").catch((failure) => failure);
    expect(error.message).toContain("context is malformed");
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "recovered" }] });
    expect((await client.prompt(sessionId, "again")).stopReason).toBe("end_turn");
    await client.close();
  });

  test("--max-turns stops a tool loop with max_turn_requests", async () => {
    const client = fixture.spawn({ args: ["--max-turns", "1"] });
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue(
      { content: [{ type: "toolCall", name: "ls", arguments: {} }] },
      { content: [{ type: "text", text: "never asked for" }] },
    );
    expect((await client.prompt(sessionId, "list")).stopReason).toBe("max_turn_requests");
    expect(fixture.fake.server.pending()).toBe(1);
    await client.close();
  });

  test("embedded resources and linked files reach the model as context; images as images", async () => {
    writeFileSync(join(fixture.cwd, "linked.ts"), "export const linked = true;\n");
    const client = fixture.spawn();
    const { sessionId } = await client.start(fixture.cwd);
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "seen" }] });
    const before = fixture.fake.server.requests.length;
    const pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    await client.agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "look at these" },
        { type: "resource", resource: { uri: "file:///virtual/embedded.md", text: "EMBEDDED BODY" } },
        { type: "resource_link", uri: `file://${join(fixture.cwd, "linked.ts")}`, name: "linked.ts" },
        { type: "image", data: pixel, mimeType: "image/png" },
      ],
    });
    const body = JSON.stringify(fixture.fake.server.requests[before].body.messages);
    expect(body).toContain("look at these");
    expect(body).toContain("EMBEDDED BODY");
    expect(body).toContain("export const linked = true;");
    expect(body).toContain(pixel);
    await client.close();
  });
});

describe("session/list and session/load", () => {
  test("a session written by -p is listed and replayed: user and agent chunks, thoughts, the tool call with its final status", async () => {
    writeFileSync(join(fixture.cwd, "data.txt"), "payload\n");
    fixture.fake.server.enqueue(
      { content: [{ type: "thinking", thinking: "I should read it" }, { type: "toolCall", id: "call_p", name: "read", arguments: { path: "data.txt" } }] },
      { content: [{ type: "text", text: "The file says payload." }] },
    );
    const printed = await runXcsh(["-p", "read data.txt for me", "--model", "fake/m"], { env: fixture.env, cwd: fixture.cwd });
    expect(printed.exitCode).toBe(0);

    const client = fixture.spawn();
    await client.initialize();
    const listed = await client.agent.request("session/list", { cwd: fixture.cwd });
    const stored = listed.sessions.find((session) => session.title?.includes("read data.txt"));
    expect(stored).toBeDefined();
    expect(stored!.cwd).toBe(fixture.cwd);

    const loaded = await client.agent.request("session/load", { sessionId: stored!.sessionId, cwd: fixture.cwd, mcpServers: [] });
    expect(loaded.modes?.currentModeId).toBe("default");
    // The replay is complete when the response arrives.
    const replay = client.updatesOf(stored!.sessionId).filter((update) => update.sessionUpdate !== "available_commands_update");
    expect(replay.map((update) => update.sessionUpdate)).toEqual(["user_message_chunk", "agent_thought_chunk", "tool_call", "agent_message_chunk"]);
    expect(replay[0]).toMatchObject({ content: { type: "text", text: "read data.txt for me" } });
    expect(replay[2]).toMatchObject({ toolCallId: "call_p", kind: "read", status: "completed" });
    expect(JSON.stringify(replay[2])).toContain("payload");
    expect(replay[3]).toMatchObject({ content: { text: "The file says payload." } });

    // The loaded session continues: the model sees the earlier conversation.
    fixture.fake.server.enqueue({ content: [{ type: "text", text: "continued" }] });
    const before = fixture.fake.server.requests.length;
    expect((await client.prompt(stored!.sessionId, "and now?")).stopReason).toBe("end_turn");
    expect(JSON.stringify(fixture.fake.server.requests[before].body.messages)).toContain("read data.txt for me");
    await client.close();
  });

  test("loading a session id that does not exist is a resource-not-found error, and the process keeps serving", async () => {
    const client = fixture.spawn();
    await client.initialize();
    const error = await client.agent
      .request("session/load", { sessionId: "00000000-0000-0000-0000-000000000000", cwd: fixture.cwd, mcpServers: [] })
      .catch((failure) => failure);
    expect(error.code).toBe(-32002);
    expect(error.message).toContain("session/list");
    const created = await client.agent.request("session/new", { cwd: fixture.cwd, mcpServers: [] });
    expect(created.sessionId).toBeTruthy();
    await client.close();
  });

  test("a prompt for a session that is not open is an error naming the session", async () => {
    const client = fixture.spawn();
    await client.initialize();
    const error = await client.prompt("not-a-session", "hi").catch((failure) => failure);
    expect(error.code).toBe(-32002);
    expect(error.message).toContain("not-a-session");
    await client.close();
  });
});
