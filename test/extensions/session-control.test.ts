/**
 * The rest of the session-facing API through the built binary: user_bash
 * interception, tree navigation with session_before_tree / session_tree,
 * ctx.compact and getContextUsage, ctx.shutdown in RPC mode,
 * --no-builtin-tools, a bash override built with createBashTool's spawnHook,
 * and project settings that run code waiting for trust.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, notices, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => fixture.server.clearScript());
afterAll(() => fixture.cleanup());

const lastNotice = (rpc: any, prefix: string) => rpc.waitFor((frame: any) => frame.method === "notify" && frame.message.startsWith(prefix));

describe("user_bash", () => {
  test("an extension can answer a user command itself, or run it through wrapped local operations", async () => {
    const ext = fixture.writeExtension(
      "user-bash.ts",
      `import { createLocalBashOperations } from "@mariozechner/pi-coding-agent";
export default function (pi) {
  pi.on("user_bash", (event) => {
    if (event.command === "whoami-remote") return { result: { output: "remote-user\\n", exitCode: 0, cancelled: false, truncated: false } };
    const local = createLocalBashOperations();
    return { operations: { exec: (command, cwd, options) => local.exec("echo wrapped; " + command, cwd, options) } };
  });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    const remote = await rpc.request({ type: "bash", command: "whoami-remote" });
    expect(remote.data).toMatchObject({ output: "remote-user\n", exitCode: 0 });
    const wrapped = await rpc.request({ type: "bash", command: "echo local" });
    expect(wrapped.data.output).toBe("wrapped\nlocal\n");
    expect(await rpc.close()).toBe(0);
  });
});

describe("tree navigation", () => {
  test("navigateTree moves the position, with a summary from session_before_tree, reported by session_tree", async () => {
    const ext = fixture.writeExtension(
      "tree.ts",
      `export default function (pi) {
  pi.on("session_before_tree", (event) => ({ summary: { summary: "Left branch: " + event.preparation.entriesToSummarize.length + " entries", details: { by: "ext" } } }));
  pi.on("session_tree", (event, ctx) => ctx.ui.notify("tree " + (event.summaryEntry ? event.summaryEntry.summary : "none") + " fromExtension=" + event.fromExtension));
  pi.registerCommand("back", { handler: async (_a, ctx) => {
    const first = ctx.sessionManager.getBranch().find((e) => e.type === "message" && e.message.role === "assistant");
    const result = await ctx.navigateTree(first.id, { summarize: true, label: "checkpoint" });
    const summary = ctx.sessionManager.getBranch().findLast((e) => e.type === "branch_summary");
    ctx.ui.notify("navigated cancelled=" + result.cancelled + " summaryLabel=" + ctx.sessionManager.getLabel(summary.id));
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    for (const message of ["one", "two"]) {
      const beforePrompt1 = rpc.mark();
      await rpc.request({ type: "prompt", message });
      await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt1);
    }
    await rpc.request({ type: "prompt", message: "/back" });
    await lastNotice(rpc, "navigated");
    expect(notices(rpc)).toEqual(["tree Left branch: 2 entries fromExtension=true", "navigated cancelled=false summaryLabel=checkpoint"]);
    const messages = (await rpc.request({ type: "get_messages" })).data.messages;
    expect(messages.map((message: any) => message.role)).toEqual(["user", "assistant", "branchSummary"]);
    expect(messages[2].summary).toBe("Left branch: 2 entries");
    // The next prompt continues from there: the model sees the summary, not the abandoned turn.
    const beforePrompt2 = rpc.mark();
    await rpc.request({ type: "prompt", message: "three" });
    await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt2);
    const sent = JSON.stringify(fixture.server.requests.at(-1)!.body.messages);
    expect(sent).toContain("Left branch: 2 entries");
    expect(sent).not.toContain('"two"');
    expect(await rpc.close()).toBe(0);
  });
});

describe("context helpers", () => {
  test("getContextUsage reports tokens against the window; ctx.compact runs with onComplete", async () => {
    const ext = fixture.writeExtension(
      "usage.ts",
      `export default function (pi) {
  pi.on("session_before_compact", (event) => ({ compaction: { summary: "short", firstKeptEntryId: event.preparation.firstKeptEntryId, tokensBefore: event.preparation.tokensBefore } }));
  pi.registerCommand("usage", { handler: async (_a, ctx) => {
    const usage = ctx.getContextUsage();
    ctx.ui.notify("usage " + (usage.tokens > 0) + " " + usage.contextWindow + " " + (usage.percent > 0 && usage.percent < 100));
    ctx.compact({ onComplete: (result) => ctx.ui.notify("compacted " + result.summary), onError: (error) => ctx.ui.notify("compact failed " + error.message) });
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    for (const message of ["one", "two", "three"]) {
      fixture.server.enqueue({ content: [{ type: "text", text: "words ".repeat(12000) }], chunkSize: 4000 });
      const beforePrompt3 = rpc.mark();
      await rpc.request({ type: "prompt", message });
      await rpc.waitForEvent("agent_end", undefined, undefined, beforePrompt3);
    }
    await rpc.request({ type: "prompt", message: "/usage" });
    await lastNotice(rpc, "compacted");
    expect(notices(rpc)).toEqual([expect.stringMatching(/^usage true \d+ true$/), "compacted short"]);
    expect(rpc.ofType("compaction_end").at(-1)).toMatchObject({ reason: "manual", aborted: false });
    expect(await rpc.close()).toBe(0);
  });

  test("ctx.shutdown() in RPC mode ends the process after the command, with session_shutdown", async () => {
    const ext = fixture.writeExtension(
      "bye.ts",
      `export default function (pi) {
  pi.on("session_shutdown", (event, ctx) => ctx.ui.notify("shutdown " + event.reason));
  pi.registerCommand("quit", { handler: async (_a, ctx) => ctx.shutdown() });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    expect((await rpc.request({ type: "prompt", message: "/quit" })).success).toBe(true);
    expect(await rpc.exitWithin(5_000)).toBe(0);
    expect(notices(rpc)).toEqual(["shutdown quit"]);
  });
});

describe("tool selection", () => {
  test("--no-builtin-tools offers only extension tools; a bash override built with spawnHook adjusts the command", async () => {
    const ext = fixture.writeExtension(
      "sandboxed-bash.ts",
      `import { createBashTool } from "@mariozechner/pi-coding-agent";
export default function (pi) {
  const bash = createBashTool(process.cwd(), { spawnHook: ({ command, cwd, env }) => ({ command: "echo [sandboxed]; " + command, cwd, env: { ...env, SANDBOX: "1" } }) });
  pi.registerTool({ ...bash, name: "bash", label: "Bash (sandboxed)", execute: (id, params, signal, onUpdate) => bash.execute(id, params, signal, onUpdate) });
}`,
    );
    const rpc = fixture.start(["--no-builtin-tools", ...withExtensions(ext)]);
    const before = fixture.server.requests.length;
    fixture.server.enqueue({ content: [{ type: "toolCall", id: "b1", name: "bash", arguments: { command: "echo sandbox=$SANDBOX" } }] }, { content: [{ type: "text", text: "ok" }] });
    await rpc.request({ type: "prompt", message: "run" });
    const end = await rpc.waitForEvent("tool_execution_end");
    await rpc.waitForEvent("agent_end");
    expect(fixture.server.requests[before].body.tools.map((tool: any) => tool.function.name)).toEqual(["bash"]);
    expect(end.result.content[0].text).toBe("[sandboxed]\nsandbox=1");
    expect(await rpc.close()).toBe(0);
  });
});

describe("project settings that run code", () => {
  test("without trust they are left out, and print mode says so once", async () => {
    mkdirSync(join(fixture.cwd, ".xcsh"), { recursive: true });
    writeFileSync(join(fixture.cwd, ".xcsh", "settings.json"), JSON.stringify({ shellCommandPrefix: "echo planted" }));
    try {
      const result = await runXcsh(["-p", "--model", "fake/fake-model", "hi"], { env: fixture.home.env, cwd: fixture.cwd });
      expect(result.exitCode).toBe(0);
      const lines = result.stderr.split("\n").filter((line) => line.includes("not trusted"));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("shellCommandPrefix");
    } finally {
      rmSync(join(fixture.cwd, ".xcsh"), { recursive: true, force: true });
    }
  });
});
