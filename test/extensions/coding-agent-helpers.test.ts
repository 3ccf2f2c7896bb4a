/**
 * The helper functions pi's coding-agent package exports, as an extension calls
 * them inside the built binary (RPC mode, fake LLM): what each returns is what a
 * user's extension shows or sends, so the tests read it back from a `notify`.
 * Also copyToClipboard with stand-in clipboard programs on a private PATH.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { startRpc } from "../support/rpc-harness.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
  writeFileSync(join(fixture.cwd, "hello.txt"), "hello from the fixture\n");
  mkdirSync(join(fixture.cwd, "skills", "alpha"), { recursive: true });
  writeFileSync(join(fixture.cwd, "skills", "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Does alpha things\n---\nAlpha steps\n");
});
afterAll(() => fixture.cleanup());

/** Runs `/report` of an extension whose handler body computes `report` (an object), and returns that object. */
async function report(name: string, body: string, imports: string): Promise<Record<string, any>> {
  const ext = fixture.writeExtension(
    `${name}.ts`,
    `${imports}
export default function (pi) {
  pi.registerCommand("report", {
    handler: async (_args, ctx) => {
      const thrown = async (fn) => { try { await fn(); return "no error"; } catch (error) { return error.message; } };
      ${body}
      ctx.ui.notify(JSON.stringify(report), "info");
    },
  });
}`,
  );
  const rpc = fixture.start(withExtensions(ext));
  await rpc.request({ type: "prompt", message: "/report" });
  await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000);
  const result = JSON.parse(notices(rpc)[0]!);
  expect(await rpc.close()).toBe(0);
  return result;
}

describe("helpers of @earendil-works/pi-coding-agent", () => {
  test("key hints, frontmatter, languages, convertToLlm, getAgentDir and the border give what pi's do", async () => {
    const result = await report(
      "basics",
      `const report = {
        hint: keyHint("app.tools.expand", "to expand"),
        cancelKeys: keyText("tui.select.cancel"),
        raw: rawKeyHint("ctrl+x", "to cut"),
        frontmatter: parseFrontmatter("---\\nname: x\\nlist: [1, 2]\\n---\\nbody\\n"),
        badYaml: await thrown(() => parseFrontmatter("---\\nname: [x\\n---\\nbody")),
        languages: ["a.ts", "b.py", "Dockerfile", "f.toml", "x.unknown"].map((path) => getLanguageFromPath(path) ?? null),
        llm: convertToLlm([
          { role: "user", content: "hi", timestamp: 1 },
          { role: "custom", customType: "note", content: "custom text", display: true, timestamp: 2 },
          { role: "bashExecution", command: "ls", output: "a.txt\\n", exitCode: 0, cancelled: false, truncated: false, timestamp: 3 },
          { role: "notification", text: "ui only", timestamp: 4 },
        ]),
        agentDir: getAgentDir(),
        border: new DynamicBorder().render(5),
        code: highlightCode("const x = 1;\\nreturn x;", "typescript"),
      };`,
      `import { keyHint, keyText, rawKeyHint, parseFrontmatter, getLanguageFromPath, convertToLlm, getAgentDir, DynamicBorder, highlightCode } from "@earendil-works/pi-coding-agent";`,
    );
    expect(result.hint).toBe("ctrl+o to expand");
    expect(result.cancelKeys).toBe("escape/ctrl+c");
    expect(result.raw).toBe("ctrl+x to cut");
    expect(result.frontmatter).toEqual({ frontmatter: { name: "x", list: [1, 2] }, body: "body\n" });
    expect(result.badYaml).toContain("Invalid YAML frontmatter");
    expect(result.languages).toEqual(["typescript", "python", "dockerfile", "toml", null]);
    expect(result.llm.map((message: any) => message.role)).toEqual(["user", "user", "user"]);
    expect(result.llm[1].content).toEqual([{ type: "text", text: "custom text" }]);
    expect(result.llm[2].content[0].text).toContain("ls");
    expect(result.llm[2].content[0].text).toContain("a.txt");
    expect(result.agentDir).toBe(fixture.home.agentDir);
    // RPC output is no terminal: helpers draw without colour codes.
    expect(result.border).toEqual(["─────"]);
    expect(result.code).toEqual(["const x = 1;", "return x;"]);
  });

  test("tools, skills, diffs and session projections work on real files and entries", async () => {
    const result = await report(
      "files",
      `const read = createReadToolDefinition(ctx.cwd);
      const readResult = await read.execute("r1", { path: "hello.txt" }, undefined, undefined, ctx);
      const skills = loadSkillsFromDir({ dir: ctx.cwd + "/skills", source: "test" });
      const entries = [
        { type: "message", id: "a", parentId: null, timestamp: "2024-01-01T00:00:00.000Z", message: { role: "user", content: "old", timestamp: 1 } },
        { type: "message", id: "b", parentId: "a", timestamp: "2024-01-01T00:00:01.000Z", message: { role: "user", content: "kept", timestamp: 2 } },
        { type: "compaction", id: "c", parentId: "b", timestamp: "2024-01-01T00:00:02.000Z", summary: "S", firstKeptEntryId: "b", tokensBefore: 9 },
        { type: "message", id: "d", parentId: "c", timestamp: "2024-01-01T00:00:03.000Z", message: { role: "user", content: "new", timestamp: 3 } },
        { type: "message", id: "e", parentId: "d", timestamp: "2024-01-01T00:00:04.000Z", message: { role: "user", content: "secret", timestamp: 4 } },
        { type: "context_edit", id: "f", parentId: "e", timestamp: "2024-01-01T00:00:05.000Z", targetId: "e", replacement: null },
        { type: "context_edit", id: "g", parentId: "f", timestamp: "2024-01-01T00:00:06.000Z", targetId: "d", replacement: { content: "edited" } },
      ];
      const report = {
        readName: read.name,
        readText: readResult.content[0].text,
        toolNames: createReadOnlyTools(ctx.cwd).map((tool) => tool.name),
        skills: skills.skills.map((skill) => [skill.name, skill.description]),
        prompt: formatSkillsForPrompt(skills.skills),
        block: parseSkillBlock('<skill name="alpha" location="/s/SKILL.md">\\nAlpha steps\\n</skill>\\n\\nplease'),
        patch: generateUnifiedPatch("f.txt", "a\\nb\\nc\\n", "a\\nB\\nc\\n"),
        diff: generateDiffString("a\\nb\\nc\\n", "a\\nB\\nc\\n"),
        contextIds: buildContextEntries(entries).map((entry) => entry.id),
        projected: buildSessionProjection(entries).messages.map((message) => message.role),
        projectedTexts: buildSessionProjection(entries).entries.map(({ sourceEntry, messages }) => [sourceEntry.id, messages.map((message) => typeof message.content === "string" ? message.content : (message.content ?? []).map((block) => block.text ?? "").join(""))]),
        shell: getShellConfig().args,
        visual: truncateToVisualLines("one two three\\nfour\\nfive", 2, 8),
      };`,
      `import { createReadToolDefinition, createReadOnlyTools, loadSkillsFromDir, formatSkillsForPrompt, parseSkillBlock, generateUnifiedPatch, generateDiffString, buildContextEntries, buildSessionProjection, getShellConfig, truncateToVisualLines } from "@earendil-works/pi-coding-agent";`,
    );
    expect(result.readName).toBe("read");
    expect(result.readText).toContain("hello from the fixture");
    expect(result.toolNames).toEqual(["read", "grep", "find", "ls"]);
    expect(result.skills).toEqual([["alpha", "Does alpha things"]]);
    expect(result.prompt).toContain("<name>alpha</name>");
    expect(result.prompt).toContain("skills/alpha/SKILL.md</location>");
    expect(result.block).toEqual({ name: "alpha", location: "/s/SKILL.md", content: "Alpha steps", userMessage: "please" });
    expect(result.patch).toBe("--- f.txt\n+++ f.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    expect(result.diff).toEqual({ diff: " 1 a\n-2 b\n+2 B\n 3 c", firstChangedLine: 2 });
    expect(result.contextIds).toEqual(["c", "b", "d", "e", "f", "g"]);
    expect(result.projected).toEqual(["compactionSummary", "user", "user"]);
    // Context edits apply as for the model: "secret" is left out, "new" is replaced.
    expect(result.projectedTexts.slice(1)).toEqual([["b", ["kept"]], ["d", ["edited"]]]);
    expect(result.shell).toEqual(["-c"]);
    expect(result.visual.visualLines.map((line: string) => line.trimEnd())).toEqual(["four", "five"]);
    expect(result.visual.skippedCount).toBe(2);
  });

  test("resizeImage scales a large image to fit and leaves a small one alone; convertToPng and mime detection read real bytes", async () => {
    const result = await report(
      "images",
      `const onePixel = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==", "base64");
      const large = await new Bun.Image(onePixel).resize(3000, 1000).png().bytes();
      const resized = await resizeImage(large, "image/png");
      const small = await resizeImage(onePixel, "image/png");
      const jpeg = await new Bun.Image(onePixel).resize(20, 10).jpeg().bytes();
      await Bun.write(ctx.cwd + "/photo.bin", jpeg);
      const png = await convertToPng(Buffer.from(jpeg).toString("base64"), "image/jpeg");
      const report = {
        resized: { width: resized.width, height: resized.height, originalWidth: resized.originalWidth, wasResized: resized.wasResized, mimeType: resized.mimeType },
        resizedIsImage: (await new Bun.Image(Buffer.from(resized.data, "base64")).metadata()).width,
        note: formatDimensionNote(resized),
        small: { wasResized: small.wasResized, sameData: small.data === onePixel.toString("base64"), note: formatDimensionNote(small) ?? null },
        garbage: await resizeImage(new Uint8Array([1, 2, 3]), "image/png"),
        pngMime: png.mimeType,
        pngHeader: Buffer.from(png.data, "base64").subarray(1, 4).toString("latin1"),
        detected: [await detectSupportedImageMimeTypeFromFile(ctx.cwd + "/photo.bin"), await detectSupportedImageMimeTypeFromFile(ctx.cwd + "/hello.txt")],
        badOptions: await thrown(() => resizeImage(large, "image/png", { maxWidth: -5 })),
      };`,
      `import { resizeImage, formatDimensionNote, convertToPng, detectSupportedImageMimeTypeFromFile } from "@mariozechner/pi-coding-agent";`,
    );
    expect(result.resized).toEqual({ width: 2000, height: 667, originalWidth: 3000, wasResized: true, mimeType: expect.stringMatching(/^image\/(png|jpeg)$/) });
    expect(result.resizedIsImage).toBe(2000);
    expect(result.note).toContain("3000x1000");
    expect(result.note).toContain("1.50");
    expect(result.small).toEqual({ wasResized: false, sameData: true, note: null });
    expect(result.garbage).toBeNull();
    expect(result.pngMime).toBe("image/png");
    expect(result.pngHeader).toBe("PNG");
    expect(result.detected).toEqual(["image/jpeg", null]);
    expect(result.badOptions).toContain("maxWidth");
  });
});

describe("copyToClipboard", () => {
  let bin: string;
  let emptyBin: string;
  beforeAll(() => {
    bin = join(fixture.home.home, "clip-bin");
    emptyBin = join(fixture.home.home, "empty-bin");
    mkdirSync(bin, { recursive: true });
    mkdirSync(emptyBin, { recursive: true });
    const cat = Bun.which("cat")!;
    for (const program of ["wl-copy", "xclip"]) {
      const path = join(bin, program);
      writeFileSync(path, `#!/bin/sh\necho "$0 $*" > "${bin}/${program}.args"\nexec ${cat} > "${bin}/${program}.out"\n`);
      chmodSync(path, 0o755);
    }
  });

  async function copyWith(env: Record<string, string>, text: string): Promise<string> {
    const ext = fixture.writeExtension(
      "clip.ts",
      `import { copyToClipboard } from "@earendil-works/pi-coding-agent";
export default function (pi) {
  pi.registerCommand("copy", {
    handler: async (args, ctx) => {
      try { await copyToClipboard(args); ctx.ui.notify("copied", "info"); } catch (error) { ctx.ui.notify("error: " + error.message, "error"); }
    },
  });
}`,
    );
    const rpc = startRpc({ env: { ...fixture.home.env, ...env }, cwd: fixture.cwd, args: withExtensions(ext) });
    await rpc.request({ type: "prompt", message: `/copy ${text}` });
    const notice = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "notify", 10_000);
    expect(await rpc.close()).toBe(0);
    return notice.message;
  }

  test("on Wayland the text goes to wl-copy", async () => {
    const message = await copyWith({ PATH: bin, WAYLAND_DISPLAY: "wayland-test", DISPLAY: "" }, "for wayland");
    expect(message).toBe("copied");
    expect(readFileSync(join(bin, "wl-copy.out"), "utf8")).toBe("for wayland");
  });

  test("under X11 the text goes to xclip's clipboard selection", async () => {
    const message = await copyWith({ PATH: bin, WAYLAND_DISPLAY: "", DISPLAY: ":0" }, "for x11");
    expect(message).toBe("copied");
    expect(readFileSync(join(bin, "xclip.out"), "utf8")).toBe("for x11");
    expect(readFileSync(join(bin, "xclip.args"), "utf8")).toContain("-selection clipboard");
  });

  test("with no clipboard program the error names what was looked for", async () => {
    const message = await copyWith({ PATH: emptyBin, WAYLAND_DISPLAY: "wayland-test" }, "nowhere");
    expect(message).toStartWith("error: No clipboard program found");
    expect(message).toContain("wl-copy");
    expect(message).toContain("xclip");
    expect(existsSync(join(emptyBin, "wl-copy.out"))).toBe(false);
  });
});
