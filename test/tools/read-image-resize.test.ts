/**
 * Images larger than the model takes are scaled down before they are sent and
 * stored, as pi 1.6.0 does (images.autoResize, default on): a `read` result, an
 * @file argument, an RPC prompt's attachment and codemode's read all reach the fake
 * model at most 2000×2000 px (or the model's inputLimits.images.resize), and so
 * does an image an extension's tool returns, with a
 * note naming the original size. With autoResize off an oversized image is refused
 * as before; an image that cannot be decoded is refused either way, saying so.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { imageSize } from "../../src/tools/image-limits.ts";
import { makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { createRpcFixture } from "../support/rpc-harness.ts";
import { createExtensionFixture, withExtensions } from "../support/extensions.ts";
import { CODEMODE_ARGS, runScriptPrompt, resultText } from "../codemode/codemode-support.ts";

const ONE_PIXEL = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64");

async function bigImage(width: number, height: number, format: "png" | "jpeg" | "webp"): Promise<Uint8Array> {
  const pipeline = new Bun.Image(ONE_PIXEL).resize(width, height, { fit: "fill" });
  return format === "png" ? pipeline.png().bytes() : format === "jpeg" ? pipeline.jpeg({ quality: 90 }).bytes() : pipeline.webp().bytes();
}

/** Every inline image of a request body (any API's spelling), with its size read from its header. */
function sentImages(body: unknown): { mimeType: string; width: number; height: number }[] {
  const json = JSON.stringify(body);
  return [...json.matchAll(/data:(image\/[a-z]+);base64,([A-Za-z0-9+/=]+)/g)].map(([, mimeType, data]) => {
    const size = imageSize(Buffer.from(data, "base64"), mimeType);
    if (!size) throw new Error(`unreadable ${mimeType} in the request`);
    return { mimeType, ...size };
  });
}

const fixture = await makeFakeModelHome([
  { id: "m", input: ["text", "image"] },
  { id: "small", input: ["text", "image"], inputLimits: { images: { resize: { maxWidth: 800, maxHeight: 800, jpegQuality: 60 } } } },
]);
const { home, server } = fixture;
const dir = join(home.home, "pictures");
mkdirSync(dir);
writeFileSync(join(dir, "shot.png"), await bigImage(4000, 3000, "png"));
writeFileSync(join(dir, "photo.jpg"), await bigImage(4000, 3000, "jpeg"));
writeFileSync(join(dir, "wide.webp"), await bigImage(3000, 1000, "webp"));
writeFileSync(join(dir, "tiny.png"), ONE_PIXEL);
// A PNG signature and header with nothing decodable after it.
writeFileSync(join(dir, "broken.png"), Buffer.concat([ONE_PIXEL.subarray(0, 16), Buffer.from("garbage that is not an image at all")]));

afterAll(() => fixture.cleanup());

function readTurn(...paths: string[]) {
  server.enqueue(
    { content: paths.map((path, index) => ({ type: "toolCall", id: `r${index}`, name: "read", arguments: { path: join(dir, path) } })) },
    { content: [{ type: "text", text: "seen" }] },
  );
}

describe("read scales large images", () => {
  test("a 4000×3000 PNG, JPEG and a WebP reach the model within 2000×2000 px, each with a note naming its original size", async () => {
    readTurn("shot.png", "photo.jpg", "wide.webp", "tiny.png");
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "look"], { env: home.env, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("seen\n");
    const body = server.requests.at(-1)!.body;
    const images = sentImages(body.messages);
    expect(images.length).toBe(4);
    expect(images.slice(0, 3).map(({ width, height }) => [width, height])).toEqual([[2000, 1500], [2000, 1500], [2000, 667]]);
    // A small image goes as it is, without a note.
    expect(images[3]).toEqual({ mimeType: "image/png", width: 1, height: 1 });
    const sent = JSON.stringify(body.messages);
    expect(sent).toContain("from 4000x3000 to 2000x1500 px");
    expect(sent).toContain("multiply coordinates in it by 2.00");
    expect(sent).toContain("from 3000x1000 to 2000x667 px");
    expect(sent.match(/Image scaled from/g)?.length).toBe(3);
  }, 90_000);

  test("a model's inputLimits.images.resize is the limit instead", async () => {
    readTurn("shot.png");
    const result = await runXcsh(["-p", "--model", "fake/small", "--no-session", "look"], { env: home.env, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    const images = sentImages(server.requests.at(-1)!.body.messages);
    expect(images.map(({ width, height }) => [width, height])).toEqual([[800, 600]]);
    expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain("from 4000x3000 to 800x600 px");
    // The key is applied now, so models.json no longer draws the "not applied" warning for it.
    expect(result.stderr).not.toContain("inputLimits.images.resize");
  }, 90_000);

  test("an image that cannot be decoded is refused with what to do, and the run goes on", async () => {
    readTurn("broken.png");
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "look"], { env: home.env, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    const sent = JSON.stringify(server.requests.at(-1)!.body.messages);
    expect(sent).toContain(`${join(dir, "broken.png")} could not be decoded as image/png`);
    expect(sent).toContain("send the converted copy instead");
    expect(sentImages(server.requests.at(-1)!.body.messages)).toEqual([]);
  }, 90_000);

  test("an @file image is scaled like a read one", async () => {
    server.enqueue({ content: [{ type: "text", text: "ok" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", `@${join(dir, "photo.jpg")}`, "what is this"], { env: home.env, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    const messages = server.requests.at(-1)!.body.messages;
    expect(sentImages(messages).map(({ width, height }) => [width, height])).toEqual([[2000, 1500]]);
    expect(JSON.stringify(messages)).toContain("from 4000x3000 to 2000x1500 px");
  }, 90_000);
});

describe("images.autoResize false keeps the refusal", () => {
  test("read and @file refuse an image past the providers' limits, naming its size", async () => {
    const off = await makeFakeModelHome([{ id: "m", input: ["text", "image"] }]);
    try {
      off.home.writeSettings({ images: { autoResize: false } });
      const big = join(off.home.home, "huge.png");
      writeFileSync(big, await bigImage(9000, 100, "png"));
      off.server.enqueue(
        { content: [{ type: "toolCall", id: "r1", name: "read", arguments: { path: big } }] },
        { content: [{ type: "text", text: "seen" }] },
      );
      const read = await runXcsh(["-p", "--model", "fake/m", "--no-session", "look"], { env: off.home.env, timeoutMs: 60_000 });
      expect(read.exitCode).toBe(0);
      const sent = JSON.stringify(off.server.requests.at(-1)!.body.messages);
      expect(sent).toContain("is too large to show to the model (9000×100 px");
      expect(sentImages(off.server.requests.at(-1)!.body.messages)).toEqual([]);

      const attached = await runXcsh(["-p", "--model", "fake/m", "--no-session", `@${big}`, "what"], { env: off.home.env, timeoutMs: 60_000 });
      expect(attached.exitCode).toBe(2);
      expect(attached.stderr).toContain("too large to show to the model");
    } finally {
      await off.cleanup();
    }
  }, 90_000);
});

describe("RPC prompts and codemode", () => {
  const rpcFixture = createRpcFixture({ models: [{ id: "fake-model", input: ["text", "image"] }] });
  afterAll(() => rpcFixture.cleanup());

  test("an RPC prompt's large image is scaled before it is sent and stored as sent", async () => {
    const rpc = rpcFixture.start();
    rpcFixture.server.enqueue({ content: [{ type: "text", text: "a picture" }] });
    const data = Buffer.from(await bigImage(4000, 3000, "png")).toString("base64");
    const from = rpc.mark();
    const response = await rpc.request({ type: "prompt", message: "describe", images: [{ type: "image", data, mimeType: "image/png" }] });
    expect(response.success).toBe(true);
    await rpc.waitForEvent("agent_end", () => true, 60_000, from);
    const messages = rpcFixture.server.requests.at(-1)!.body.messages;
    expect(sentImages(messages).map(({ width, height }) => [width, height])).toEqual([[2000, 1500]]);
    expect(JSON.stringify(messages)).toContain("from 4000x3000 to 2000x1500 px");
    // The session file holds the scaled image, so a resumed session sends the same bytes.
    const state = await rpc.request({ type: "get_state" });
    const entries = readFileSync(state.data.sessionFile, "utf8").trim().split("\n").map((line) => JSON.parse(line));
    const stored = entries.flatMap((entry) => (entry.type === "message" && Array.isArray(entry.message.content) ? entry.message.content : []));
    const storedImages = stored.filter((block: { type: string }) => block.type === "image");
    expect(storedImages.map((block: { data: string; mimeType: string }) => imageSize(Buffer.from(block.data, "base64"), block.mimeType))).toEqual([{ width: 2000, height: 1500 }]);
    await rpc.close();
  }, 90_000);

  test("codemode's read of a large image gets the scaled data and the note", async () => {
    writeFileSync(join(rpcFixture.cwd, "big.png"), await bigImage(4000, 3000, "png"));
    const rpc = rpcFixture.start(CODEMODE_ARGS);
    const code =
      'const img = await tools.read({ path: "big.png" });\n' +
      'const bytes = Uint8Array.from(atob(img.data), (c) => c.charCodeAt(0));\n' +
      "const view = new DataView(bytes.buffer);\n" +
      'return img.note + " | " + img.mimeType + " " + view.getUint32(16) + "x" + view.getUint32(20);';
    const end = await runScriptPrompt(rpc, rpcFixture.server, "c1", code, 60_000);
    const text = resultText(end);
    expect(text).toContain("from 4000x3000 to 2000x1500 px");
    expect(text).toContain("| image/png 2000x1500");
    await rpc.close();
  }, 90_000);
});

describe("images other tools return", () => {
  const extFixture = createExtensionFixture({ models: [{ id: "fake-model", input: ["text", "image"] }] });
  afterAll(() => extFixture.cleanup());

  test("an extension tool's large screenshot is scaled like read's, with the note after it", async () => {
    const shot = join(extFixture.cwd, "screen.png");
    writeFileSync(shot, await bigImage(3000, 2400, "png"));
    const extension = extFixture.writeExtension(
      "screenshot.ts",
      `import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "screenshot", label: "Screenshot", description: "Takes a screenshot", parameters: Type.Object({}),
    async execute() {
      const data = Buffer.from(await Bun.file(${JSON.stringify(shot)}).bytes()).toString("base64");
      return { content: [{ type: "text", text: "the screen" }, { type: "image", data, mimeType: "image/png" }], details: {} };
    },
  });
}
`,
    );
    const rpc = extFixture.start(withExtensions(extension));
    extFixture.server.enqueue(
      { content: [{ type: "toolCall", id: "s1", name: "screenshot", arguments: {} }] },
      { content: [{ type: "text", text: "seen" }] },
    );
    const from = rpc.mark();
    await rpc.request({ type: "prompt", message: "look at the screen" });
    await rpc.waitForEvent("agent_end", () => true, 60_000, from);
    const messages = extFixture.server.requests.at(-1)!.body.messages;
    expect(sentImages(messages).map(({ width, height }) => [width, height])).toEqual([[2000, 1600]]);
    expect(JSON.stringify(messages)).toContain("from 3000x2400 to 2000x1600 px");
    await rpc.close();
  }, 90_000);
});
