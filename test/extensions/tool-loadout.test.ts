/**
 * pi 1.6.0's Tool Exposure hooks through the binary: a tool's `prepareLoadout` runs when
 * the active tools change and may replace declared descriptions and hide declarations —
 * hidden tools stay active and callable, requests and the default system prompt leave them
 * out (the skills hint then names no file reader) — and `reachesTools` is reported by
 * getAllTools. What the fake LLM receives is the proof.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
  mkdirSync(join(fixture.home.agentDir, "skills", "alpha"), { recursive: true });
  writeFileSync(join(fixture.home.agentDir, "skills", "alpha", "SKILL.md"), "---\nname: alpha\ndescription: Does alpha things\n---\nAlpha steps\n");
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const WAIT = 20_000;
const callTool = (name: string, args: Record<string, unknown>, id: string) => ({ content: [{ type: "toolCall" as const, id, name, arguments: args }] });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

const declaredTools = (request: { body: any }): Record<string, string> =>
  Object.fromEntries((request.body.tools ?? []).map((tool: any) => [tool.function.name, tool.function.description]));

function systemPromptOf(request: { body: any }): string {
  const system = request.body.messages.find((message: any) => message.role === "system" || message.role === "developer");
  return typeof system?.content === "string" ? system.content : JSON.stringify(system?.content);
}

// An orchestrating tool in the manner of codemode: it lists what it may call in its own
// description and hides the declarations of `helper` and `read`, which it calls itself.
const ORCHESTRA = `import { Type } from "typebox";
export default function (pi) {
  globalThis.loadoutCalls = 0;
  pi.registerTool({
    name: "helper",
    label: "helper",
    description: "original helper description",
    promptSnippet: "helper snippet",
    promptGuidelines: ["Use helper wisely"],
    parameters: Type.Object({}),
    async execute() { return { content: [{ type: "text", text: "helper ran" }], details: {} }; },
  });
  pi.registerTool({
    name: "orchestra",
    label: "orchestra",
    description: "runs other tools",
    parameters: Type.Object({ code: Type.String() }),
    reachesTools: (input) => String(input.code ?? "").split(/[^A-Za-z_]+/).filter(Boolean),
    prepareLoadout(loadout) {
      globalThis.loadoutCalls++;
      const others = loadout.declared.map((tool) => tool.name).filter((name) => name !== "orchestra");
      return {
        descriptions: {
          orchestra: "Orchestrates " + others.join(",") + "; helper is " + loadout.getExposure("helper") + "; guidelines " + loadout.getPromptGuidelines("helper").join("|"),
          nothere: "ignored: not declared",
        },
        hiddenDeclarations: ["helper", "read"],
      };
    },
    async execute(id, params, signal, onUpdate, ctx) {
      const result = await ctx.executeTool("helper", {});
      return { content: [{ type: "text", text: "orchestra got " + result.result.content[0].text }], details: {} };
    },
  });
  pi.registerCommand("tools-info", {
    handler: async (args, ctx) => {
      const all = pi.getAllTools();
      const orchestra = all.find((tool) => tool.name === "orchestra");
      ctx.ui.notify("reaches " + JSON.stringify(orchestra.reachesTools({ code: "helper(); read()" })));
      ctx.ui.notify("helper reaches " + typeof all.find((tool) => tool.name === "helper").reachesTools);
      ctx.ui.notify("active " + pi.getActiveTools().join(","));
      ctx.ui.notify("calls " + globalThis.loadoutCalls);
    },
  });
  pi.registerCommand("drop-orchestra", {
    handler: async () => pi.setActiveTools(pi.getActiveTools().filter((name) => name !== "orchestra")),
  });
}
`;

describe("prepareLoadout", () => {
  test("replaces declared descriptions and hides declarations: hidden tools stay active and callable, by other tools and by the model; requests and the system prompt leave them out", async () => {
    const ext = fixture.writeExtension("orchestra.ts", ORCHESTRA);
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(callTool("orchestra", { code: "helper()" }, "o1"), callTool("helper", {}, "h1"), text("done"));
    await rpc.request({ type: "prompt", message: "go" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT);

    const first = fixture.server.requests[before]!;
    const declared = declaredTools(first);
    expect(Object.keys(declared)).not.toContain("helper");
    expect(Object.keys(declared)).not.toContain("read");
    expect(Object.keys(declared)).toEqual(expect.arrayContaining(["bash", "edit", "write", "orchestra"]));
    // The hook saw the declarations as they were before it hid any, with the registered exposure and guidelines.
    expect(declared.orchestra).toBe("Orchestrates read,bash,edit,write,helper; helper is direct; guidelines Use helper wisely");
    expect(declared.bash).not.toContain("Orchestrates");

    const prompt = systemPromptOf(first);
    expect(prompt).not.toContain("helper snippet");
    expect(prompt).not.toContain("Use helper wisely");
    expect(prompt).not.toMatch(/^- read:/m);
    expect(prompt).toMatch(/^- bash:/m);
    // The skills are still offered, without naming a file reader the model does not see.
    expect(prompt).toContain("<name>alpha</name>");
    expect(prompt).toContain("read its file before you start");
    expect(prompt).not.toContain("with the read tool");

    // The orchestrating tool called the hidden tool, and the model's own call to it ran too.
    const ends = rpc.ofType("tool_execution_end");
    expect(ends.find((frame) => frame.toolCallId === "o1")).toMatchObject({ isError: false, result: { content: [{ text: "orchestra got helper ran" }] } });
    expect(ends.find((frame) => frame.toolCallId === "h1")).toMatchObject({ isError: false, result: { content: [{ text: "helper ran" }] } });
    // Every request of the run declared the same loadout.
    for (const request of fixture.server.requests.slice(before)) expect(Object.keys(declaredTools(request))).not.toContain("helper");

    await rpc.request({ type: "prompt", message: "/tools-info" }, WAIT);
    const seen = notices(rpc);
    expect(seen).toContain('reaches ["helper","read"]');
    expect(seen).toContain("helper reaches undefined");
    const active = seen.find((line) => line.startsWith("active "))!.slice("active ".length).split(",");
    expect(active).toEqual(expect.arrayContaining(["read", "helper", "orchestra"]));
    // Asked when the tools changed (each registration), not again for every request.
    const calls = Number(seen.find((line) => line.startsWith("calls "))!.slice("calls ".length));
    expect(calls).toBeGreaterThanOrEqual(1);
    expect(calls).toBeLessThanOrEqual(3);
    expect(await rpc.close(WAIT)).toBe(0);
  });

  test("once the orchestrating tool is no longer active, the hidden tools are declared again with their own descriptions", async () => {
    const ext = fixture.writeExtension("orchestra.ts", ORCHESTRA);
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/drop-orchestra" }, WAIT);
    const before = fixture.server.requests.length;
    fixture.server.enqueue(text("ok"));
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT);
    const request = fixture.server.requests[before]!;
    const declared = declaredTools(request);
    expect(declared.helper).toBe("original helper description");
    expect(Object.keys(declared)).toContain("read");
    expect(Object.keys(declared)).not.toContain("orchestra");
    const prompt = systemPromptOf(request);
    expect(prompt).toContain("helper snippet");
    expect(prompt).toContain("with the read tool");
    expect(await rpc.close(WAIT)).toBe(0);
  });

  test("a prepareLoadout that throws is the extension's error; the tools stay declared as they are", async () => {
    const ext = fixture.writeExtension(
      "broken-loadout.ts",
      `import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "broken",
    label: "broken",
    description: "broken tool",
    parameters: Type.Object({}),
    prepareLoadout() { throw new Error("loadout exploded"); },
    async execute() { return { content: [{ type: "text", text: "x" }], details: {} }; },
  });
}
`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const before = fixture.server.requests.length;
    fixture.server.enqueue(text("ok"));
    await rpc.request({ type: "prompt", message: "hello" });
    await rpc.waitForEvent("agent_settled", () => true, WAIT);
    const declared = declaredTools(fixture.server.requests[before]!);
    expect(declared.broken).toBe("broken tool");
    expect(Object.keys(declared)).toContain("read");
    const error = rpc.ofType("extension_error").find((frame) => frame.event === "prepare_loadout");
    expect(error).toMatchObject({ error: "loadout exploded" });
    expect(error!.extensionPath).toContain("broken-loadout.ts");
    expect(await rpc.close(WAIT)).toBe(0);
  });
});

describe("reachesTools of xcsh's own tools", () => {
  test("getAllTools reports tool_search's and codemode's reach: tool_search any tool, a codemode script the tools it names unless it searches", async () => {
    const ext = fixture.writeExtension(
      "reach-report.ts",
      `export default function (pi) {
  pi.registerCommand("reach", {
    handler: async (args, ctx) => {
      const all = pi.getAllTools();
      const reach = (name, input) => { const tool = all.find((each) => each.name === name); return tool && tool.reachesTools ? JSON.stringify(tool.reachesTools(input)) : "none"; };
      ctx.ui.notify("tool_search " + reach("tool_search", { query: "x" }));
      ctx.ui.notify("codemode named " + reach("codemode", { code: "await tools.mcp__docs__search({ q: 1 })" }));
      ctx.ui.notify("codemode searching " + reach("codemode", { code: "const found = await searchTools('docs')" }));
      ctx.ui.notify("read " + reach("read", { path: "a" }));
    },
  });
}
`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/reach" }, WAIT);
    const seen = notices(rpc);
    expect(seen).toContain('tool_search "all"');
    const named = JSON.parse(seen.find((line) => line.startsWith("codemode named "))!.slice("codemode named ".length));
    expect(named).toEqual(expect.arrayContaining(["tools", "mcp__docs__search"]));
    expect(seen).toContain('codemode searching "all"');
    expect(seen).toContain("read none");
    expect(await rpc.close(WAIT)).toBe(0);
  });
});
