import { afterAll, expect, test } from "bun:test";
import { createRpcFixture } from "../../support/rpc-harness.ts";
const fixture = createRpcFixture({ models: [{ id: "fake-model", input: ["text", "image"] }] });
afterAll(() => fixture.cleanup());
test("race", async () => {
  const rpc = fixture.start();
  fixture.server.enqueue({ content: [{ type: "text", text: "A answer" }], delayMs: 300 }, { content: [{ type: "text", text: "B answer" }], delayMs: 300 });
  rpc.send({ type: "abort_and_prompt", message: "A", id: "a" });
  rpc.send({ type: "prompt", message: "B", id: "b" });
  await rpc.waitForResponse("a"); await rpc.waitForResponse("b");
  await Bun.sleep(1500);
  console.log(JSON.stringify(rpc.responses), rpc.ofType("agent_start").length, rpc.stderr);
  await rpc.close();
});
test("images", async () => {
  const rpc = fixture.start();
  fixture.server.enqueue({ content: [{ type: "text", text: "x" }] }, { content: [{ type: "text", text: "y" }] });
  console.log(JSON.stringify(await rpc.request({ type: "prompt", message: "x", images: { length: 1 } })));
  await Bun.sleep(500);
  console.log(JSON.stringify(await rpc.request({ type: "prompt", message: "x", images: [null] })));
  await Bun.sleep(500);
  console.log(JSON.stringify(await rpc.request({ type: "prompt", message: "later" })));
  await Bun.sleep(500);
  console.log(rpc.frames.map((f) => f.type + (f.message?.errorMessage ? ":" + f.message.errorMessage : "")).join(" "), rpc.stderr);
  await rpc.close();
});
