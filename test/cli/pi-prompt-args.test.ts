/**
 * pi 0.87.1's prompt arguments through the built binary, observed where they land:
 * in the requests the fake LLM server receives. `@file` text and images go with the
 * first prompt, each message is a turn of its own, piped stdin comes first, and the
 * system-prompt options read files and repeat.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeLlm, type FakeLlmServer } from "../support/fake-llm/server.ts";
import { ensureBinary, makeTestHome, runXcsh, type TestHome } from "../support/cli.ts";
import { startRpc } from "../support/rpc-harness.ts";

/** A 1×1 PNG. */
const PNG_BASE64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

let server: FakeLlmServer;
let home: TestHome;
let project: string;

beforeAll(() => {
  ensureBinary();
  server = startFakeLlm();
});
afterAll(() => server.close());
beforeEach(() => {
  home?.cleanup();
  home = makeTestHome();
  home.writeModelsJson({
    providers: {
      fake: { baseUrl: server.baseUrl("openai-completions"), api: "openai-completions", apiKey: "k", models: [{ id: "m", input: ["text", "image"] }] },
    },
  });
  project = join(home.home, "project");
  mkdirSync(project);
});

const run = (args: string[], stdin?: string) => runXcsh(["--model", "fake/m", "--no-session", ...args], { env: home.env, cwd: project, ...(stdin !== undefined ? { stdin } : {}) });
const reply = (text: string) => ({ content: [{ type: "text" as const, text }] });
/** The user messages of a request, each as its text and the images it carries. */
function userTurns(request: { body: any }): { text: string; images: string[] }[] {
  return request.body.messages
    .filter((message: any) => message.role === "user")
    .map((message: any) => {
      const parts = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
      return {
        text: parts.filter((part: any) => part.type === "text").map((part: any) => part.text).join(""),
        images: parts.filter((part: any) => part.type === "image_url").map((part: any) => part.image_url.url),
      };
    });
}
const systemPrompt = (request: { body: any }): string => request.body.messages.find((message: any) => message.role === "system").content;

describe("@file arguments", () => {
  test("a text file's contents go before the first message in a <file> block; an empty file adds nothing", async () => {
    writeFileSync(join(project, "notes.md"), "line one\nline two\n");
    writeFileSync(join(project, "b.txt"), "B");
    writeFileSync(join(project, "empty.txt"), "");
    server.enqueue(reply("ok"));
    const before = server.requests.length;
    const result = await run(["-p", "@notes.md", "What do they say?", "@b.txt", "@empty.txt"]);
    expect(result.exitCode).toBe(0);
    expect(server.requests.length - before).toBe(1);
    expect(userTurns(server.requests[before])).toEqual([
      {
        text: `<file name="${join(project, "notes.md")}">\nline one\nline two\n\n</file>\n<file name="${join(project, "b.txt")}">\nB\n</file>\nWhat do they say?`,
        images: [],
      },
    ]);
  });

  test("an image, known by its bytes whatever its name, reaches the model as image content", async () => {
    writeFileSync(join(project, "screenshot.dat"), Buffer.from(PNG_BASE64, "base64"));
    server.enqueue(reply("a dot"));
    const before = server.requests.length;
    const result = await run(["-p", "@screenshot.dat", "What is this?"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("a dot\n");
    expect(userTurns(server.requests[before])).toEqual([
      { text: `<file name="${join(project, "screenshot.dat")}"></file>\nWhat is this?`, images: [`data:image/png;base64,${PNG_BASE64}`] },
    ]);
  });

  test("with images.blockImages the image stays out of the request; a line says so in its place", async () => {
    writeFileSync(join(project, "shot.png"), Buffer.from(PNG_BASE64, "base64"));
    home.writeSettings({ images: { blockImages: true } });
    server.enqueue(reply("no picture"));
    const before = server.requests.length;
    const result = await run(["-p", "@shot.png", "What is this?"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).not.toContain("blockImages");
    const [turn] = userTurns(server.requests[before]);
    expect(turn!.images).toEqual([]);
    expect(turn!.text).toContain("[image not sent: images.blockImages is on in settings.json]");
    expect(JSON.stringify(server.requests[before]!.body)).not.toContain(PNG_BASE64);
  });

  test("a missing file or a folder stops the run before any request, naming the argument", async () => {
    mkdirSync(join(project, "src"));
    const before = server.requests.length;
    const missing = await run(["-p", "@nope.txt", "hi"]);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(`@nope.txt: file not found: ${join(project, "nope.txt")}`);
    const folder = await run(["-p", "@src", "hi"]);
    expect(folder.exitCode).toBe(2);
    expect(folder.stderr).toContain("@src:");
    expect(folder.stderr).toContain("is a folder");
    expect(server.requests.length).toBe(before);
  });

  test("rpc mode refuses @file arguments, as pi does, before writing any frame", async () => {
    writeFileSync(join(project, "notes.md"), "x");
    const result = await runXcsh(["--mode", "rpc", "--model", "fake/m", "@notes.md"], { env: home.env, cwd: project, stdin: "" });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe("");
    expect(result.stderr).toContain("@file arguments are not supported in rpc mode (@notes.md)");
  });

  test("rpc mode ignores message words: nothing is asked until a prompt command comes", async () => {
    const before = server.requests.length;
    const rpc = startRpc({ env: home.env, cwd: project, args: ["--model", "fake/m", "--no-session", "hello there"] });
    const state = await rpc.request({ type: "get_state" });
    expect(state.success).toBe(true);
    expect(await rpc.close()).toBe(0);
    expect(server.requests.length).toBe(before);
  });
});

describe("several messages", () => {
  test("each message is its own user turn, sent after the previous answer; -p prints the last answer", async () => {
    server.enqueue(reply("first answer"), reply("second answer"));
    const before = server.requests.length;
    const result = await run(["-p", "one", "two"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("second answer\n");
    expect(server.requests.length - before).toBe(2);
    expect(userTurns(server.requests[before]).map((turn) => turn.text)).toEqual(["one"]);
    const second = server.requests[before + 1].body.messages.filter((message: any) => message.role !== "system");
    expect(second.map((message: any) => message.role)).toEqual(["user", "assistant", "user"]);
    expect(userTurns(server.requests[before + 1]).map((turn) => turn.text)).toEqual(["one", "two"]);
  });

  test("json mode shows both runs: two agent_start/agent_end pairs, then one result", async () => {
    server.enqueue(reply("A"), reply("B"));
    const result = await run(["--mode", "json", "one", "two"]);
    expect(result.exitCode).toBe(0);
    const frames = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(frames.filter((frame) => frame.type === "agent_start")).toHaveLength(2);
    expect(frames.filter((frame) => frame.type === "agent_end")).toHaveLength(2);
    expect(frames.at(-1)).toMatchObject({ type: "result", status: "success", turns: 2 });
  });

  test("a failed answer does not stop the next prompt (as in pi)", async () => {
    server.enqueue({ type: "error", status: 400, message: "bad request" }, reply("recovered"));
    const before = server.requests.length;
    const result = await run(["-p", "one", "two"]);
    expect(server.requests.length - before).toBe(2);
    expect(userTurns(server.requests[before + 1]).map((turn) => turn.text)).toEqual(["one", "two"]);
    expect(result.stdout).toBe("recovered\n");
    expect(result.exitCode).toBe(0);
  });
});

describe("piped stdin", () => {
  test("goes before the prompt, trimmed, joined without a separator (pi's form), and before @file blocks", async () => {
    writeFileSync(join(project, "a.txt"), "A\n");
    server.enqueue(reply("ok"), reply("ok"));
    const before = server.requests.length;
    expect((await run(["-p", "Review this"], "  diff --git a b\n+added\n\n")).exitCode).toBe(0);
    expect(userTurns(server.requests[before]).map((turn) => turn.text)).toEqual(["diff --git a b\n+addedReview this"]);
    expect((await run(["-p", "@a.txt", "go"], "piped\n")).exitCode).toBe(0);
    expect(userTurns(server.requests[before + 1]).map((turn) => turn.text)).toEqual([`piped<file name="${join(project, "a.txt")}">\nA\n\n</file>\ngo`]);
  });

  test("alone, it is the prompt", async () => {
    server.enqueue(reply("ok"));
    const before = server.requests.length;
    expect((await run(["-p"], "only stdin\n")).exitCode).toBe(0);
    expect(userTurns(server.requests[before]).map((turn) => turn.text)).toEqual(["only stdin"]);
  });
});

describe("system prompt options", () => {
  test("--append-system-prompt repeats, each a text or a file's contents, in order", async () => {
    writeFileSync(join(project, "extra.md"), "FROM THE FILE\n");
    server.enqueue(reply("ok"));
    const before = server.requests.length;
    const result = await run(["-p", "--append-system-prompt", "FIRST ADDITION", "--append-system-prompt", "extra.md", "hi"]);
    expect(result.exitCode).toBe(0);
    const prompt = systemPrompt(server.requests[before]);
    expect(prompt).toContain("FIRST ADDITION\n\nFROM THE FILE");
    expect(prompt).not.toContain("extra.md");
  });

  test("--system-prompt names a file: its contents replace the base prompt", async () => {
    writeFileSync(join(project, "system.md"), "You are a terse bot.");
    server.enqueue(reply("ok"));
    const before = server.requests.length;
    expect((await run(["-p", "--system-prompt", "system.md", "hi"])).exitCode).toBe(0);
    const prompt = systemPrompt(server.requests[before]);
    expect(prompt.startsWith("You are a terse bot.")).toBe(true);
    expect(prompt).not.toContain("You are xcsh");
  });
});

describe("prompt template arguments (pi 1.6.0)", () => {
  test("an apostrophe inside a word, an unclosed quote and \\\" inside quotes reach the model as typed", async () => {
    mkdirSync(join(home.agentDir, "prompts"));
    writeFileSync(join(home.agentDir, "prompts", "review.md"), "---\ndescription: Review\n---\nFIRST=<$1> SECOND=<$2> REST=<${@:3}>\n");
    server.enqueue(reply("ok"), reply("ok"));
    const before = server.requests.length;
    expect((await run(["-p", `/review "the \\"fast\\" path" doesn't x`])).exitCode).toBe(0);
    expect(userTurns(server.requests[before]!)[0]!.text.trimEnd()).toBe(`FIRST=<the "fast" path> SECOND=<doesn't> REST=<x>`);
    expect((await run(["-p", `/review 'unclosed a b`])).exitCode).toBe(0);
    expect(userTurns(server.requests[before + 1]!)[0]!.text.trimEnd()).toBe(`FIRST=<'unclosed> SECOND=<a> REST=<b>`);
  });
});
