/**
 * Prompt templates' defaults (pi 0.87.1's prompt-templates.md): `${N:-default}`
 * is the Nth argument or, when it is missing or empty, the default;
 * `${@:-default}` is all arguments or, when there are none, the default. Checked
 * in the user message the fake model receives for an RPC `prompt` of `/name …`,
 * next to the placeholders templates had before.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createRpcFixture, FAKE_MODEL, textOf, type RpcFixture, type RpcProcess } from "../support/rpc-harness.ts";

let fixture: RpcFixture;
let rpc: RpcProcess;

const REVIEW = "Review the staged changes. Focus on ${1:-correctness, security, and error handling}.\n";
const SHAPES = "first=[${1:-one}] second=[${2:-two}] all=[${@:-everything}] plain=[$1] rest=[${@:2}] empty=[${3:-}] nested=[${2:-$1}] braces=[${1}]\n";

beforeAll(() => {
  fixture = createRpcFixture();
  const prompts = join(fixture.home.agentDir, "prompts");
  mkdirSync(prompts, { recursive: true });
  writeFileSync(join(prompts, "review.md"), `---\ndescription: Review staged changes\nargument-hint: "[focus]"\n---\n${REVIEW}`);
  writeFileSync(join(prompts, "shapes.md"), SHAPES);
  rpc = fixture.start(["--model", FAKE_MODEL, "--no-session"]);
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

/** Sends `message` as an RPC prompt and returns the text of the user message the model received. */
async function received(message: string): Promise<string> {
  const from = rpc.mark();
  const response = await rpc.request({ type: "prompt", message });
  expect(response.success).toBe(true);
  await rpc.waitForEvent("agent_settled", () => true, 10_000, from);
  const messages = fixture.server.requests.at(-1)!.body.messages;
  return textOf(messages.findLast((entry: { role: string }) => entry.role === "user"));
}

test("pi's example: the default when no argument is given, the argument when one is", async () => {
  expect(await received("/review")).toBe("Review the staged changes. Focus on correctness, security, and error handling.\n");
  expect(await received('/review "API compatibility"')).toBe("Review the staged changes. Focus on API compatibility.\n");
});

test("no arguments: every default applies; a default is put in as written", async () => {
  expect(await received("/shapes")).toBe("first=[one] second=[two] all=[everything] plain=[] rest=[] empty=[] nested=[$1] braces=[${1}]\n");
});

test("some arguments: given ones replace their defaults, missing ones keep them", async () => {
  expect(await received("/shapes alpha")).toBe("first=[alpha] second=[two] all=[alpha] plain=[alpha] rest=[] empty=[] nested=[$1] braces=[${1}]\n");
  expect(await received("/shapes alpha 'b c' d")).toBe("first=[alpha] second=[b c] all=[alpha b c d] plain=[alpha] rest=[b c d] empty=[d] nested=[b c] braces=[${1}]\n");
});

test("an empty argument counts as missing, as with a shell's :-", async () => {
  expect(await received('/shapes ""')).toBe("first=[one] second=[two] all=[everything] plain=[] rest=[] empty=[] nested=[$1] braces=[${1}]\n");
});

test("an argument that looks like a placeholder with a default is kept as typed", async () => {
  expect(await received("/review '${2:-sneaky}'")).toBe("Review the staged changes. Focus on ${2:-sneaky}.\n");
});
