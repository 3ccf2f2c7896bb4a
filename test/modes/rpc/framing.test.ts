/**
 * JSONL framing of `xcsh --mode rpc` (seed 000, "分帧"): LF is the only record
 * separator, a CR before it is dropped, U+2028/U+2029 stay inside strings,
 * bad lines get a `parse` error and the reader carries on, and a last line
 * without LF still counts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createRpcFixture, duplicateResponseIds, textOf, type RpcFixture } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

describe("record separators", () => {
  test("CRLF line endings are accepted", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const responded = rpc.waitForResponse("crlf-1");
    rpc.write('{"id":"crlf-1","type":"set_session_name","name":"crlf name"}\r\n{"id":"crlf-2","type":"get_state"}\r\n');
    expect((await responded).success).toBe(true);
    const state = await rpc.waitForResponse("crlf-2");
    // The CR was not taken as part of the record (the name would end in "\r" or the JSON would not parse).
    expect(state.data.sessionName).toBe("crlf name");
    expect(rpc.ofType("response").filter((frame) => frame.command === "parse")).toHaveLength(0);
    expect(await rpc.close()).toBe(0);
  });

  test("U+2028 and U+2029 inside a message round-trip exactly and never split a frame", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const text = "first\u2028second\u2029third";
    fixture.server.enqueue((request) => {
      // Echo the user's text back: it must reach the model unchanged too.
      const last = request.body.messages.at(-1);
      return { content: [{ type: "text", text: `echo:${typeof last.content === "string" ? last.content : last.content[0].text}` }] };
    });
    expect((await rpc.request({ type: "prompt", message: text })).success).toBe(true);
    const end = await rpc.waitForEvent("agent_end");

    expect(textOf(end.messages[0])).toBe(text);
    expect(textOf(end.messages[1])).toBe(`echo:${text}`);
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(textOf(messages[0])).toBe(text);

    // On the wire the separators are escaped, so even a reader that splits on them sees whole frames.
    const carrying = rpc.rawLines.filter((line) => line.includes("\\u2028"));
    expect(carrying.length).toBeGreaterThan(0);
    expect(rpc.rawLines.some((line) => line.includes("\u2028") || line.includes("\u2029"))).toBe(false);
    expect(rpc.ofType("__unparseable_stdout__")).toHaveLength(0);
    expect(await rpc.close()).toBe(0);
  });

  test("a multi-byte character split across two writes is decoded whole", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const bytes = new TextEncoder().encode('{"id":"utf","type":"set_session_name","name":"会话名称"}\n');
    const middleOfFirstCharacter = bytes.indexOf(0xe4) + 1;
    const responded = rpc.waitForResponse("utf");
    rpc.write(bytes.subarray(0, middleOfFirstCharacter));
    await Bun.sleep(30); // let the first half arrive as its own chunk; correctness does not depend on it
    rpc.write(bytes.subarray(middleOfFirstCharacter));
    expect((await responded).success).toBe(true);
    expect((await rpc.request({ type: "get_state" })).data.sessionName).toBe("会话名称");
    expect(await rpc.close()).toBe(0);
  });

  test("a last line without LF is still executed before exit", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    rpc.write('{"id":"no-lf","type":"get_state"}');
    const code = await rpc.close();
    expect(code).toBe(0);
    const response = rpc.responses.find((frame) => frame.id === "no-lf");
    expect(response).toMatchObject({ command: "get_state", success: true });
  });

  test("empty and blank lines are ignored", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    rpc.write("\n\n   \n\r\n\t\n");
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(rpc.responses).toHaveLength(1);
  });

  test("several commands in one write are all answered, in order", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const ids = ["m1", "m2", "m3", "m4"];
    const last = rpc.waitForResponse("m4");
    rpc.write(ids.map((id) => JSON.stringify({ id, type: "get_state" })).join("\n") + "\n");
    await last;
    expect(rpc.responses.map((frame) => frame.id)).toEqual(ids);
    expect(await rpc.close()).toBe(0);
  });
});

describe("malformed input", () => {
  test("invalid JSON gets a parse error without id, and the next command works", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    rpc.send('{"id":"broken","type":"get_state"\n');
    const failure = await rpc.waitFor((frame) => frame.type === "response" && frame.command === "parse");
    expect(failure.success).toBe(false);
    expect(failure.error).toStartWith("Failed to parse command:");
    expect(failure.id).toBeUndefined();

    const next = await rpc.request({ type: "get_state" });
    expect(next.success).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("JSON that is not an object is rejected as a parse error", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const inputs = ["[1,2,3]", "42", '"get_state"', "null", "true"];
    for (const input of inputs) rpc.send(input + "\n");
    const state = await rpc.request({ type: "get_state" });
    expect(state.success).toBe(true);
    const failures = rpc.responses.filter((frame) => frame.command === "parse");
    expect(failures).toHaveLength(inputs.length);
    for (const failure of failures) {
      expect(failure.success).toBe(false);
      expect(failure.error).toStartWith("Failed to parse command:");
    }
    expect(await rpc.close()).toBe(0);
  });

  test("an unknown command fails with its name and the request's id", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    rpc.send({ id: "u-1", type: "x" });
    const failure = await rpc.waitFor((frame) => frame.type === "response" && frame.command === "x");
    expect(failure).toEqual({ id: "u-1", type: "response", command: "x", success: false, error: "Unknown command: x" });
    rpc.send({ id: 7, type: "y" });
    expect(await rpc.waitFor((frame) => frame.type === "response" && frame.command === "y")).toMatchObject({ id: 7, success: false });
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("a type that is not a string — a crafted object, 5 000 nested arrays — is answered, and the process keeps serving", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    rpc.write('{"id":1,"type":{"toString":1}}\n');
    rpc.write(`{"id":2,"type":${"[".repeat(5000)}${"]".repeat(5000)}}\n`);
    rpc.write('{"id":3,"type":null}\n{"id":4}\n');
    for (const id of [1, 2, 3, 4]) {
      const answer = await rpc.waitFor((frame) => frame.type === "response" && frame.id === id);
      expect(answer).toMatchObject({ success: false, command: "unknown" });
      expect(answer.error).toStartWith("Unknown command:");
    }
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("bytes that are not UTF-8 become U+FFFD, as in pi: a line whose JSON holds runs with its id, a cut sequence spoils only its own line", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const encoder = new TextEncoder();
    // A line ending inside a character: its JSON is no longer intact (U+FFFD after the object).
    const bytes = [...encoder.encode('{"id":"a","type":"get_state"}'), 0xe2, 0x82, 0x0a, ...encoder.encode('{"id":"b","type":"get_state"}\n')];
    rpc.write(new Uint8Array(bytes));
    // An invalid byte inside a string: the command runs with U+FFFD in its place, answered with its id.
    rpc.write(new Uint8Array([...encoder.encode('{"id":"c","type":"set_session_name","name":"x'), 0xff, ...encoder.encode('y"}\n')]));
    expect((await rpc.waitForResponse("b")).success).toBe(true);
    expect(await rpc.waitForResponse("c")).toMatchObject({ success: true, command: "set_session_name" });
    expect((await rpc.request({ type: "get_state" })).data.sessionName).toBe("x\ufffdy");
    const failures = rpc.ofType("response").filter((frame) => frame.command === "parse");
    expect(failures).toHaveLength(1);
    expect(failures[0].error).toStartWith("Failed to parse command:");
    expect(rpc.ofType("response").some((frame) => frame.id === "a")).toBe(false);
    expect(await rpc.close()).toBe(0);
  });
});

describe("long lines", () => {
  test("a 10 MB session name arrives whole", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    // 10 MB of UTF-8: 7 MB of ASCII and 1 M three-byte characters.
    const name = "n".repeat(7 * 1024 * 1024) + "名".repeat(1024 * 1024) + "-end";
    const started = Date.now();
    const response = await rpc.request({ type: "set_session_name", name }, 10_000);
    expect(response.success).toBe(true);
    const state = await rpc.request({ type: "get_state" }, 10_000);
    expect(state.data.sessionName.length).toBe(name.length);
    expect(state.data.sessionName === name).toBe(true);
    // Linear, not quadratic, in the line length.
    expect(Date.now() - started).toBeLessThan(8_000);
    expect(await rpc.close()).toBe(0);
  }, 15_000);

  test("a 10 MB prompt reaches the model intact", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", "--rpc-lean"]);
    const message = "p".repeat(10 * 1024 * 1024 - 3) + "END";
    const before = fixture.server.requests.length;
    fixture.server.enqueue({ content: [{ type: "text", text: "got it" }] });
    expect((await rpc.request({ type: "prompt", message }, 10_000)).success).toBe(true);
    await rpc.waitForEvent("agent_end", () => true, 10_000);
    const sent = fixture.server.requests[before].body.messages.at(-1);
    const sentText = typeof sent.content === "string" ? sent.content : sent.content[0].text;
    expect(sentText.length).toBe(message.length);
    expect(sentText.endsWith("END")).toBe(true);
    // --rpc-lean: message_update carries the delta only, not the cumulative message.
    for (const update of rpc.ofType("message_update")) {
      expect(update.message).toBeUndefined();
      expect(update.assistantMessageEvent.partial).toBeUndefined();
    }
    expect(rpc.ofType("message_update").some((update) => update.assistantMessageEvent.type === "text_delta")).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(duplicateResponseIds(rpc.frames)).toEqual([]);
  }, 15_000);
});

describe("the lean form", () => {
  test("deltas that arrive together go out as one frame, and they add up to the answer", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", "--rpc-lean"]);
    const text = Array.from({ length: 2500 }, (_, i) => `w${i % 10}x`).join(" ");
    fixture.server.enqueue({ content: [{ type: "text", text }], chunkSize: 8 });
    await rpc.request({ type: "prompt", message: "stream" });
    await rpc.waitForEvent("agent_end", () => true, 10_000);
    const deltas = rpc.ofType("message_update").filter((update) => update.assistantMessageEvent.type === "text_delta");
    expect(deltas.map((update) => update.assistantMessageEvent.delta).join("")).toBe(text);
    // 8-character deltas, one frame each, would be ~12x the text in bytes.
    expect(deltas.length).toBeLessThan(Math.ceil(text.length / 8));
    expect(await rpc.close()).toBe(0);
  }, 15_000);

  test("a streamed answer costs under 4× its text: each message goes out whole once, in message_end", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session", "--rpc-lean"]);
    const text = Array.from({ length: 2500 }, (_, i) => `w${i % 10}x`).join(" ").slice(0, 10_000);
    fixture.server.enqueue({ content: [{ type: "text", text }], chunkSize: 4 });
    await rpc.request({ id: "go", type: "prompt", message: "stream" });
    await rpc.waitForEvent("agent_end", () => true, 10_000);
    const from = rpc.rawLines.findIndex((line) => line.includes('"id":"go"'));
    const bytes = rpc.rawLines.slice(from).reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
    expect(bytes).toBeLessThan(4 * text.length);
    // turn_end and agent_end no longer repeat what message_end carried…
    expect(rpc.ofType("turn_end")[0]).toEqual({ type: "turn_end" });
    expect(rpc.ofType("agent_end")[0]).toEqual({ type: "agent_end" });
    // …which still holds the complete answer.
    const ends = rpc.ofType("message_end").filter((frame) => frame.message.role === "assistant");
    expect(textOf(ends[0].message)).toBe(text);
    expect(await rpc.close()).toBe(0);
  }, 15_000);
});

describe("the default form", () => {
  test("deltas that arrive together are merged, and each frame's message holds the text so far", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const text = Array.from({ length: 2000 }, (_, i) => `d${i % 10}y`).join(" ");
    fixture.server.enqueue({ content: [{ type: "text", text }], chunkSize: 4 });
    await rpc.request({ type: "prompt", message: "stream" });
    await rpc.waitForEvent("agent_end", () => true, 10_000);
    const deltas = rpc.ofType("message_update").filter((update) => update.assistantMessageEvent.type === "text_delta");
    expect(deltas.map((update) => update.assistantMessageEvent.delta).join("")).toBe(text);
    expect(deltas.length).toBeLessThan(Math.ceil(text.length / 4));
    // pi's shape is kept: the cumulative message, twice, as far as the deltas have come.
    let soFar = "";
    for (const update of deltas) {
      soFar += update.assistantMessageEvent.delta;
      expect(textOf(update.message)).toBe(soFar);
      expect(update.assistantMessageEvent.partial).toEqual(update.message);
    }
    // turn_end and agent_end keep their messages in this form.
    expect(textOf(rpc.ofType("turn_end")[0].message)).toBe(text);
    expect(rpc.ofType("agent_end")[0].messages.length).toBeGreaterThan(0);
    expect(await rpc.close()).toBe(0);
  }, 15_000);
});
