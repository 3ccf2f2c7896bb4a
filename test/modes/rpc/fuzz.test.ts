/**
 * Fuzzing `xcsh --mode rpc` with malformed input from a fixed seed: more than 20,000
 * lines of invalid JSON, invalid UTF-8 (at line ends, and inside strings of lines that
 * carry an id, which each answer must echo: pi reads such bytes as U+FFFD), raw lone
 * surrogates (CESU-8), NULs, lone surrogate escapes, CRLF, blank lines, non-objects,
 * `type`s of every JSON kind, ids of every JSON kind, duplicate ids, every command with
 * wrong-typed fields (from the command schemas), one 20 MB line and nesting 100,000 deep.
 *
 * What a host relies on, checked afterwards over the whole conversation: the process
 * keeps serving, every stdout line is a JSON object, each line that must be answered is
 * answered exactly once (the id echoed when it is a string or a finite number, no id
 * otherwise), a command that does not fit its schema fails naming a field, and a prompt
 * sent at the end still runs.
 *
 * Nothing here starts long work: prompt, bash, compact and abort_and_prompt are only
 * ever sent with a field that does not fit, and so are the commands that write or switch
 * session files.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Value } from "typebox/value";
import type { TSchema } from "typebox";
import { COMMAND_TYPES, commandSchema } from "../../../src/modes/rpc/rpc-schemas.ts";
import type { RpcCommandType } from "../../../src/modes/rpc/rpc-types.ts";
import { createRpcFixture, type Frame, type RpcFixture } from "../../support/rpc-harness.ts";

let fixture: RpcFixture;

beforeAll(() => {
  fixture = createRpcFixture();
});
afterAll(() => fixture.cleanup());

const SEED = 0x5eed_2026;
const TOTAL_LINES = 20_000;
const BATCH = 300;

/** mulberry32: a tiny deterministic PRNG, so a failure replays exactly. */
class Rng {
  constructor(private state: number) {}
  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

type CommandType = RpcCommandType;

/** Only ever sent with a field that does not fit: they would start real work or touch session files. */
const INVALID_ONLY = new Set<string>(["prompt", "steer", "follow_up", "abort_and_prompt", "bash", "compact", "new_session", "switch_session", "fork", "branch", "clone", "export_html"]);

/** A value that fits, per field name, for the commands that may be sent valid. */
const FITTING: Record<string, () => unknown> = {
  provider: () => "fake",
  modelId: () => "no-such-model",
  level: () => "off",
  mode: () => "all",
  enabled: () => true,
  name: () => "fuzz \ud800 name",
  phases: () => [{ name: "p", tasks: ["t"] }],
  tools: () => [],
};

const encoder = new TextEncoder();
const bytes = (text: string) => encoder.encode(text);
function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

const ODD_STRINGS = ["", " ", "x", "\u0000", "a\u0000b", "\ud800", "\udc00x", "x\udbff", "\u2028\u2029", "🙂", "\r\n", "\\", "\ufeff", "__proto__", "constructor", "toString", "steer", "followUp", "all", "immediate", "high", "image/png", "QUJD", "data:image/png;base64,QUJD", "../../etc/passwd"];
const ODD_NUMBERS = [0, -0, 1, -1, 1.5, -7.25, 1e308, -1e308, 5e-324, 2 ** 53 + 2, 4294967296];

function oddValue(rng: Rng, depth = 0): unknown {
  const kind = rng.int(depth > 3 ? 4 : 7);
  switch (kind) {
    case 0:
      return rng.pick([null, true, false]);
    case 1:
      return rng.pick(ODD_NUMBERS);
    case 2:
    case 3:
      return rng.pick(ODD_STRINGS);
    case 4: {
      const length = rng.int(4);
      return Array.from({ length }, () => oddValue(rng, depth + 1));
    }
    case 5:
      return rng.pick([{}, { type: "image" }, { type: "image", data: "!!", mimeType: "text/plain" }, { name: 1, description: [], parameters: "x" }, { content: "" }, { tasks: [null] }]);
    default: {
      const object: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--) object[rng.pick(["type", "id", "data", "tasks", "name", "content", "__proto__", "x"])] = oddValue(rng, depth + 1);
      return object;
    }
  }
}

/** An id of any JSON kind; a small pool of repeated ones makes duplicates. */
function randomId(rng: Rng, serial: number): unknown {
  switch (rng.int(10)) {
    case 0:
      return rng.pick(["dup", "dup-2", "", "\ud800", "\u0000"]);
    case 1:
      return rng.pick([0, 1, -1, 2.5, 1e308, -0]);
    case 2:
      return rng.pick([null, true, false, {}, { id: "x" }, [], ["c"]]);
    case 3:
      return serial;
    default:
      return `c-${serial}`;
  }
}

interface Expectation {
  /** Lines that must each get one response, by id key (JSON of the echoed id; "" for none). */
  byId: Map<string, number>;
  /** Unique string ids whose command does not fit its schema: each must fail, naming a field. */
  mustFail: Set<string>;
}

/** The key of the id a response must carry for this frame: a string or a finite number is echoed. */
function idKey(frame: Record<string, unknown>): string {
  const id = frame.id;
  if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) return JSON.stringify(id);
  return "";
}

const SILENT_TYPES = new Set(["host_tool_update", "host_tool_result", "extension_ui_response"]);

/** What the process must answer to one line, worked out from the bytes the way a host would. */
function expectAnswers(line: Uint8Array, expectation: Expectation): void {
  const count = (key: string): void => {
    expectation.byId.set(key, (expectation.byId.get(key) ?? 0) + 1);
  };
  // Invalid bytes become U+FFFD, as pi decodes them: a line whose JSON survives is answered with its id.
  const text = new TextDecoder("utf-8").decode(line);
  if (text.trim() === "") return;
  let frame: unknown;
  try {
    frame = JSON.parse(text);
  } catch {
    return count("");
  }
  if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return count("");
  const type = (frame as { type?: unknown }).type;
  if (typeof type === "string" && SILENT_TYPES.has(type)) return;
  count(idKey(frame as Record<string, unknown>));
}

/** The command types sent with a field that does not fit. */
const sentWrong = new Set<string>();

/** A command from its schema, with some fields wrong; always wrong for INVALID_ONLY types. */
function schemaCommand(rng: Rng, serial: number, expectation: Expectation): Record<string, unknown> | undefined {
  const type = rng.pick(COMMAND_TYPES);
  const schema = commandSchema(type) as TSchema & { properties: Record<string, TSchema> };
  const fields = Object.keys(schema.properties).filter((name) => name !== "type");
  const mayFit = !INVALID_ONLY.has(type);
  if (!mayFit && fields.length === 0) return undefined; // clone: no field can be wrong
  const command: Record<string, unknown> = { type };
  for (const field of fields) {
    const roll = rng.int(3);
    if (roll === 0 && mayFit && FITTING[field]) command[field] = FITTING[field]!();
    else if (roll === 1) command[field] = oddValue(rng);
  }
  if (rng.chance(0.1)) command[rng.pick(["extra", "__proto__", "images", "id2"])] = oddValue(rng);
  // Make sure at least one field does not fit where the command must never run.
  for (let tries = 0; !mayFit && Value.Check(schema, command); tries++) {
    if (tries > 50) return undefined;
    command[rng.pick(fields)] = oddValue(rng);
  }
  const uniqueId = rng.chance(0.7);
  if (uniqueId) command.id = `s-${serial}`;
  else if (rng.chance(0.8)) command.id = randomId(rng, serial);
  if (!Value.Check(schema, command)) sentWrong.add(type);
  if (uniqueId && !Value.Check(schema, command)) expectation.mustFail.add(`s-${serial}`);
  return command;
}

const BAD_UTF8 = [[0xff], [0xc3], [0xe4, 0xbd], [0xf0, 0x9f, 0x99], [0xc0, 0xaf], [0xf4, 0x90, 0x80, 0x80], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf], [0x80], [0xfe, 0xfe]];

/** Ids of the lines with invalid UTF-8 inside a string (kind 5). */
const idCarryingInvalidUtf8 = new Set<string>();

/** Lines generated per kind of randomLine (12: a schema command), for the summary. */
const tally: number[] = Array(13).fill(0);

/** One generated line, without its line ending. */
function randomLine(rng: Rng, serial: number, expectation: Expectation): Uint8Array {
  const kind = rng.int(20);
  tally[Math.min(kind, 12)]!++;
  const idPart = () => (rng.chance(0.8) ? `"id":${JSON.stringify(randomId(rng, serial)) ?? "null"},` : "");
  switch (kind) {
    case 0: // not JSON at all
      return bytes(
        rng.pick([
          "{",
          "}",
          "{'type':'get_state'}",
          '{"type":"get_state",}',
          '{"type":"get_state"} trailing',
          '{"type":"get_state"}{"type":"get_state"}',
          "{type:get_state}",
          "NaN",
          "Infinity",
          "undefined",
          '{"id":"x" "type":"get_state"}',
          "// comment",
          '"unterminated',
          "\ufeff{\"type\":\"get_state\"}",
          "[1,2",
          "\u00a0{}\u00a0x",
          '{"a":\u0001}',
        ]),
      );
    case 1: {
      // a valid command cut short
      const full = JSON.stringify({ id: `t-${serial}`, type: rng.pick(COMMAND_TYPES), message: "hello" });
      return bytes(full.slice(0, 1 + rng.int(full.length - 2)));
    }
    case 2: // whole-line values that are not objects
      return bytes(rng.pick(["0", "-1.5e3", "[]", '[{"type":"get_state","id":"arr"}]', '"get_state"', "null", "true", "false", '""', "123456789012345678901234567890"]));
    case 3: // `type` of a kind other than string
      return bytes(`{${idPart()}"type":${rng.pick(["{}", '{"type":"get_state"}', "[]", '["get_state"]', "0", "1.5", "null", "true", "false"])}}`);
    case 4: // invalid UTF-8 at the end of a line
      return concat([bytes(JSON.stringify({ id: `u-${serial}`, type: "get_state" })), new Uint8Array(rng.pick(BAD_UTF8))]);
    case 5: {
      // invalid UTF-8 inside a string: the line carries an id, which its answer must echo
      idCarryingInvalidUtf8.add(`v-${serial}`);
      const [head, tail] = [`{"id":"v-${serial}","type":"${rng.pick(["set_session_name", "get_state", "prompt", "bash"])}","name":"a`, `b","command":1,"message":2}`];
      return concat([bytes(head), new Uint8Array(rng.pick(BAD_UTF8)), bytes(tail)]);
    }
    case 6: {
      // raw NUL bytes, inside a string and between tokens
      const where = rng.int(3);
      if (where === 0) return bytes(`{"id":"n-${serial}","type":"set_session_name","name":"a\u0000b"}`);
      if (where === 1) return bytes(`{"id":"n-${serial}",\u0000"type":"get_state"}`);
      return bytes("\u0000");
    }
    case 7: // lone surrogate escapes: in ids, types and fields
      return bytes(rng.pick([`{"id":"\\ud800","type":"get_state"}`, `{"id":"w-${serial}","type":"\\udc00"}`, `{"id":"w-${serial}","type":"set_model","provider":"\\ud800","modelId":"\\udfff"}`, `{"id":"w-${serial}","type":"prompt","message":["\\ud800"]}`]));
    case 8: // blank lines
      return bytes(rng.pick(["", " ", "\t", "\r", "  \t  ", "\u00a0", "\u2028"]));
    case 9: // ids written as raw numbers, including ones JSON.stringify could not echo
      return bytes(`{"id":${rng.pick(["1e400", "-1e400", "12345678901234567890", "1.0", "-0", "0.1e1", "1E2", "-0.0"])},"type":"get_state"}`);
    case 10: // frames that carry answers to the host's side of the protocol, all wrong
      return bytes(JSON.stringify({ type: rng.pick([...SILENT_TYPES]), id: oddValue(rng), requestId: oddValue(rng), result: oddValue(rng), partialResult: oddValue(rng), isError: oddValue(rng), value: oddValue(rng) }));
    case 11: // unknown command names
      return bytes(JSON.stringify({ id: randomId(rng, serial), type: rng.pick(["", "GET_STATE", "get_state ", "toString", "__proto__", "constructor", "hasOwnProperty", "x".repeat(500), "\ud800", "response"]) }));
    default: {
      const command = schemaCommand(rng, serial, expectation);
      return bytes(command === undefined ? "   " : JSON.stringify(command));
    }
  }
}

function ending(rng: Rng): Uint8Array {
  return bytes(rng.chance(0.2) ? "\r\n" : "\n");
}

/** Frames that answer lines, with the given id key ("" for none). */
function responsesByKey(frames: Frame[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const frame of frames) {
    if (frame.type !== "response") continue;
    const key = "id" in frame ? JSON.stringify(frame.id) : "";
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

describe("what the fuzz found", () => {
  test("a wrong field nested 100,000 deep is named in the error, not reported as a stack overflow", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    const depth = 100_000;
    const answered = rpc.waitForResponse("deep");
    rpc.write(`{"id":"deep","type":"set_session_name","name":${"[".repeat(depth)}${"]".repeat(depth)}}\n`);
    const response = await answered;
    expect(response.success).toBe(false);
    expect(response.error).toStartWith('"name" must be a string (got [[[[');
    expect(response.error).not.toContain("call stack");
    // Also inside a union branch (set_todos tasks).
    const todos = await rpc.request({ type: "set_todos", phases: [{ tasks: [JSON.parse(`${'{"content":'.repeat(1000)}"t"${"}".repeat(1000)}`)] }] });
    expect(todos.error).toContain('"phases[0].tasks[0].content" must be a non-empty string (got {"content":');
    expect(await rpc.close()).toBe(0);
  });

  test("an id too large for a number (1e400) is not echoed as null: the response carries no id", async () => {
    const rpc = fixture.start(["--model", "fake/fake-model", "--no-session"]);
    rpc.write('{"id":1e400,"type":"get_state"}\n{"id":-1e400,"type":"no_such_command"}\n');
    expect((await rpc.request({ id: "after", type: "get_state" })).success).toBe(true);
    const [first, second] = rpc.responses;
    expect(first).toMatchObject({ command: "get_state", success: true });
    expect(second).toMatchObject({ command: "no_such_command", success: false });
    expect("id" in first!).toBe(false);
    expect("id" in second!).toBe(false);
    expect(rpc.rawLines.some((line) => line.includes('"id":null'))).toBe(false);
    expect(await rpc.close()).toBe(0);
  });
});

describe("fuzzing the rpc reader and dispatcher", () => {
  test("20,000 malformed lines: the process keeps serving, answers each line once, and a prompt still works", async () => {
    const started = performance.now();
    const rpc = fixture.start();
    const rng = new Rng(SEED);
    const expectation: Expectation = { byId: new Map(), mustFail: new Set() };
    let syncs = 0;

    /** Writes lines (each with its ending) and waits until an ordered command sent after them is answered. */
    const send = async (lines: Uint8Array[], timeoutMs = 15_000) => {
      const id = `sync-${++syncs}`;
      // set_thinking_level is ordered: answered only after every ordered command before it.
      const sync = bytes(JSON.stringify({ id, type: "set_thinking_level", level: null }) + "\n");
      for (const line of lines) expectAnswers(line.at(-1) === 0x0a ? line.subarray(0, line.at(-2) === 0x0d ? -2 : -1) : line, expectation);
      expectAnswers(sync.subarray(0, -1), expectation);
      const answered = rpc.waitForResponse(id, timeoutMs);
      rpc.write(concat([...lines, sync]));
      await answered;
      expect(rpc.proc.exitCode).toBeNull();
    };

    // The big ones first, each alone.
    const depth = 100_000;
    await send([bytes(`{"id":"deep-1","type":"set_session_name","name":${"[".repeat(depth)}${"]".repeat(depth)}}\n`)]);
    await send([bytes(`{"id":"deep-2","type":"get_state","x":${'{"a":'.repeat(depth)}0${"}".repeat(depth)}}\n`)]);
    await send([bytes(`${"[".repeat(depth)}${"]".repeat(depth)}\n`)]);
    await send([bytes(`{"id":"deep-4","type":${"[".repeat(depth)}${"]".repeat(depth)}}\n`)]);
    await send([bytes(`{"id":"deep-5","type":"set_todos","phases":[{"tasks":[${'{"content":'.repeat(depth)}"t"${"}".repeat(depth)}]}]}\n`)]);
    await send([bytes(`{"id":"huge","type":"steer","message":["${"x".repeat(20 * 1024 * 1024)}"]}\n`)], 30_000);
    expect(rpc.proc.exitCode).toBeNull();

    // Then the bulk, a batch at a time so stdout is drained in between.
    let serial = 0;
    while (serial < TOTAL_LINES) {
      const lines: Uint8Array[] = [];
      for (let i = 0; i < BATCH && serial < TOTAL_LINES; i++, serial++) lines.push(concat([randomLine(rng, serial, expectation), ending(rng)]));
      await send(lines);
    }
    // A line torn inside a character must not poison the line after it.
    await send([concat([bytes('{"id":"tail","type":"get_state","x":"'), new Uint8Array([0xe4, 0xbd]), bytes('"}\n')])]);

    // Each line with invalid UTF-8 inside a string is answered once, with its id (none with an id-less parse error).
    expect(idCarryingInvalidUtf8.size).toBeGreaterThan(100);
    const answersById = responsesByKey(rpc.frames);
    expect([...idCarryingInvalidUtf8].filter((id) => answersById.get(JSON.stringify(id)) !== 1).slice(0, 5)).toEqual([]);
    expect(byIdOf(rpc.frames, "tail")).toMatchObject({ command: "get_state", success: true });

    // Every command with fields got wrong-typed ones.
    expect(COMMAND_TYPES.filter((type) => Object.keys(commandSchema(type).properties).length > 1 && !sentWrong.has(type))).toEqual([]);

    // Every line answered exactly once, with the id it carried (when echoable), nothing extra.
    const answered = responsesByKey(rpc.frames);
    const keys = new Set([...expectation.byId.keys(), ...answered.keys()]);
    const differences = [...keys].filter((key) => expectation.byId.get(key) !== answered.get(key)).map((key) => ({ id: key, lines: expectation.byId.get(key) ?? 0, responses: answered.get(key) ?? 0 }));
    expect(differences.slice(0, 20)).toEqual([]);
    const totalExpected = [...expectation.byId.values()].reduce((sum, n) => sum + n, 0);
    expect(rpc.responses.length).toBe(totalExpected);

    // Every stdout line is a JSON object; every response is well formed.
    expect(rpc.rawLines.filter((line) => !isJsonObject(line)).slice(0, 5)).toEqual([]);
    expect(rpc.ofType("__unparseable_stdout__")).toHaveLength(0);
    for (const response of rpc.responses) {
      expect(typeof response.command).toBe("string");
      expect(typeof response.success).toBe("boolean");
      if (!response.success) expect(response.error).toEqual(expect.any(String));
      if ("id" in response) expect(["string", "number"]).toContain(typeof response.id);
    }

    // A command that does not fit its schema fails, naming a field.
    const byId = new Map(rpc.responses.filter((frame) => typeof frame.id === "string").map((frame) => [frame.id as string, frame]));
    const unnamed = [...expectation.mustFail].map((id) => byId.get(id)!).filter((response) => response.success || !/"[^"]*"/.test(response.error ?? ""));
    expect(unnamed.slice(0, 5)).toEqual([]);
    expect(byId.get("deep-1")).toMatchObject({ success: false, error: expect.stringContaining('"name"') });
    expect(byId.get("deep-5")).toMatchObject({ success: false });
    expect(byId.get("huge")).toMatchObject({ success: false, error: expect.stringContaining('"message"') });

    // A prompt at the end still works, and so does everything after it.
    fixture.server.enqueue({ content: [{ type: "text", text: "still here" }] });
    const from = rpc.mark();
    expect(await rpc.request({ id: "final", type: "prompt", message: "hello" }, 15_000)).toMatchObject({ success: true });
    const end = await rpc.waitForEvent("agent_end", () => true, 15_000, from);
    expect(JSON.stringify(end.messages)).toContain("still here");
    const state = await rpc.request({ type: "get_state" });
    expect(state).toMatchObject({ success: true, data: { isStreaming: false } });
    expect(await rpc.close(15_000)).toBe(0);

    const lines = serial + 7;
    console.error(
      `rpc fuzz: seed ${SEED}, ${lines} lines, ${rpc.responses.length} responses (${expectation.mustFail.size} schema failures checked), lines per kind ${tally.join("/")}, ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }, 60_000);
});

function byIdOf(frames: Frame[], id: string): Frame | undefined {
  return frames.find((frame) => frame.type === "response" && frame.id === id);
}

function isJsonObject(line: string): boolean {
  try {
    const value = JSON.parse(line);
    return typeof value === "object" && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}
