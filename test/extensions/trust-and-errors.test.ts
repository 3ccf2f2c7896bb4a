/**
 * What a cloned repository can plant runs only once the project is trusted, and
 * a broken extension never takes the others (or the protocol) down — checked
 * through the built binary in print, json and RPC modes.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { runXcsh } from "../support/cli.ts";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterEach(() => {
  fixture.server.clearScript();
  rmSync(join(fixture.cwd, ".xcsh"), { recursive: true, force: true });
  rmSync(join(fixture.home.agentDir, "extensions"), { recursive: true, force: true });
  rmSync(join(fixture.home.agentDir, "trust.json"), { force: true });
  rmSync(join(fixture.home.agentDir, "settings.json"), { force: true });
});
afterAll(() => fixture.cleanup());

const MODEL = ["--model", "fake/fake-model"];
const print = (args: string[]) => runXcsh(["-p", ...args, ...MODEL], { env: fixture.home.env, cwd: fixture.cwd });
const lastSystemPrompt = () => fixture.server.requests.at(-1)!.body.messages[0].content as string;

/** A project extension that marks the system prompt, so the model's request shows whether it loaded. */
const PLANTED = `export default function (pi) {
  pi.on("before_agent_start", (event, ctx) => ({ systemPrompt: event.systemPrompt + "\\nPROJECT EXTENSION LOADED trusted=" + ctx.isProjectTrusted() }));
  pi.registerCommand("planted", { description: "from the project", handler: async (_a, ctx) => ctx.ui.notify("planted ran") });
}`;

describe("project trust", () => {
  test("print mode without a decision: project extensions do not load and one stderr line says how to trust", async () => {
    fixture.writeProjectExtension("planted.ts", PLANTED);
    const result = await print(["hello"]);
    expect(result.exitCode).toBe(0);
    expect(lastSystemPrompt()).not.toContain("PROJECT EXTENSION LOADED");
    const lines = result.stderr.trim().split("\n").filter((line) => line.includes("not trusted"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("--trust-project");
    expect(lines[0]).toContain("defaultProjectTrust");
  });

  test("--trust-project or defaultProjectTrust \"trust\" loads them; \"deny\" does not and says nothing", async () => {
    fixture.writeProjectExtension("planted.ts", PLANTED);
    expect((await print(["--trust-project", "hi"])).exitCode).toBe(0);
    expect(lastSystemPrompt()).toContain("PROJECT EXTENSION LOADED trusted=true");

    fixture.home.writeSettings({ defaultProjectTrust: "trust" });
    const trusted = await print(["hi"]);
    expect(lastSystemPrompt()).toContain("PROJECT EXTENSION LOADED trusted=true");
    expect(trusted.stderr).not.toContain("not trusted");

    fixture.home.writeSettings({ defaultProjectTrust: "deny" });
    const denied = await print(["hi"]);
    expect(lastSystemPrompt()).not.toContain("PROJECT EXTENSION LOADED");
    expect(denied.stderr).not.toContain("not trusted");
  });

  test("a user extension's project_trust handler decides, and remember:true writes trust.json", async () => {
    fixture.writeProjectExtension("planted.ts", PLANTED);
    fixture.writeUserExtension(
      "trust-gate.ts",
      `export default function (pi) {
  pi.on("project_trust", (event) => ({ trusted: event.cwd.endsWith("/project") ? "yes" : "undecided", remember: true }));
}`,
    );
    const result = await print(["hi"]);
    expect(result.exitCode).toBe(0);
    expect(lastSystemPrompt()).toContain("PROJECT EXTENSION LOADED trusted=true");
    const store = JSON.parse(readFileSync(join(fixture.home.agentDir, "trust.json"), "utf8"));
    expect(Object.values(store.projects)).toEqual([expect.objectContaining({ trusted: true })]);
  });

  test("RPC with 'ask': startup does not wait, the host gets a confirm, and 'yes' loads the project's extensions", async () => {
    fixture.writeProjectExtension("planted.ts", PLANTED);
    const rpc = fixture.start();
    const question = await rpc.waitFor((frame) => frame.type === "extension_ui_request" && frame.method === "confirm");
    expect(question.title).toContain("Trust");
    // Commands are answered while the question is open.
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect((await rpc.request({ type: "get_commands" })).data.commands).toEqual([]);
    rpc.send({ type: "extension_ui_response", id: question.id, confirmed: true });
    let commands: any[] = [];
    for (let attempt = 0; attempt < 50 && commands.length === 0; attempt++) {
      commands = (await rpc.request({ type: "get_commands" })).data.commands;
      if (commands.length === 0) await Bun.sleep(20);
    }
    expect(commands.map((command) => command.name)).toEqual(["planted"]);
    await rpc.request({ type: "prompt", message: "hi" });
    await rpc.waitForEvent("agent_end");
    expect(lastSystemPrompt()).toContain("PROJECT EXTENSION LOADED trusted=true");
    expect(await rpc.close()).toBe(0);
    expect(JSON.parse(readFileSync(join(fixture.home.agentDir, "trust.json"), "utf8")).projects).not.toEqual({});
  });

  test("RPC: answering no keeps them unloaded", async () => {
    fixture.writeProjectExtension("planted.ts", PLANTED);
    const rpc = fixture.start();
    const question = await rpc.waitFor((frame) => frame.method === "confirm");
    rpc.send({ type: "extension_ui_response", id: question.id, confirmed: false });
    await rpc.request({ type: "prompt", message: "hi" });
    await rpc.waitForEvent("agent_end");
    expect(lastSystemPrompt()).not.toContain("PROJECT EXTENSION LOADED");
    expect((await rpc.request({ type: "get_commands" })).data.commands).toEqual([]);
    expect(await rpc.close()).toBe(0);
  });
});

describe("error isolation", () => {
  const brokenSet = () => [
    fixture.writeExtension("syntax.ts", "export default function (pi) { pi.on(\"input\", ( => {}); }"),
    fixture.writeExtension("throws.ts", "export default function () { throw new Error('factory exploded'); }"),
    fixture.writeExtension("missing-dep.ts", "import leftPad from 'left-pad-not-installed';\nexport default function (pi) { leftPad; }"),
    fixture.writeExtension("no-default.ts", "export const x = 1;"),
    fixture.writeExtension(
      "good.ts",
      `export default function (pi) {
  console.log("console.log from an extension");
  process.stdout.write("raw stdout write from an extension\\n");
  pi.registerCommand("good", { description: "still works", handler: async (_a, ctx) => ctx.ui.notify("good ran") });
  pi.on("agent_start", () => { throw new Error("handler failed"); });
}`,
    ),
  ];

  test("RPC: each broken extension is an extension_error naming its path; the good one works; stdout stays JSON", async () => {
    const paths = brokenSet();
    const rpc = fixture.start(withExtensions(...paths));
    const commands = (await rpc.request({ type: "get_commands" })).data.commands;
    expect(commands.map((command: any) => command.name)).toEqual(["good"]);
    const loadErrors = rpc.ofType("extension_error").filter((frame) => frame.event === "load");
    expect(loadErrors.map((frame) => frame.extensionPath)).toEqual(paths.slice(0, 4));
    expect(loadErrors[1].error).toBe("factory exploded");
    expect(loadErrors[2].error).toContain("left-pad-not-installed");
    expect(loadErrors[3].error).toContain("default export");

    await rpc.request({ type: "prompt", message: "hi" });
    await rpc.waitForEvent("agent_end");
    expect(rpc.ofType("extension_error").find((frame) => frame.event === "agent_start")).toMatchObject({ error: "handler failed", extensionPath: paths[4] });
    await rpc.request({ type: "prompt", message: "/good" });
    await rpc.waitFor((frame) => frame.method === "notify");
    expect(await rpc.close()).toBe(0);
    // Every stdout line parsed as JSON (the harness would have failed otherwise); the noise went to stderr.
    expect(rpc.frames.some((frame) => JSON.stringify(frame).includes("from an extension"))).toBe(false);
    expect(rpc.stderr).toContain("raw stdout write from an extension");
    expect(rpc.stderr).toContain("console.log from an extension");
  });

  test("print mode: one stderr line per broken extension, and the answer alone on stdout", async () => {
    const paths = brokenSet();
    fixture.server.enqueue({ content: [{ type: "text", text: "the answer" }] });
    const result = await print([...paths.flatMap((path) => ["-e", path]), "hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toBe("the answer\n");
    for (const path of paths.slice(0, 4)) expect(result.stderr).toContain(path);
    expect(result.stderr).toContain("console.log from an extension");
    expect(result.stderr).toContain("raw stdout write from an extension");
  });

  test("json mode: load failures follow the session header as extension_error events", async () => {
    const paths = brokenSet();
    const result = await runXcsh(["--mode", "json", "-p", ...paths.flatMap((path) => ["-e", path]), ...MODEL, "hi"], { env: fixture.home.env, cwd: fixture.cwd });
    expect(result.exitCode).toBe(0);
    const frames = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(frames[0].type).toBe("session");
    expect(frames.slice(1, 5).map((frame) => [frame.type, frame.extensionPath])).toEqual(paths.slice(0, 4).map((path) => ["extension_error", path]));
    expect(frames.slice(-3).map((frame) => frame.type)).toEqual(["agent_end", "agent_settled", "result"]); // json mode ends with the result envelope
  });

  test("a stray timer error or unhandled rejection in an extension is reported, and the process keeps serving", async () => {
    const ext = fixture.writeExtension(
      "stray.ts",
      `export default function (pi) {
  pi.registerCommand("boom", { handler: async () => {
    setTimeout(() => { throw new Error("stray timer error"); }, 5);
    Promise.reject(new Error("stray rejection"));
  } });
}`,
    );
    const rpc = fixture.start(withExtensions(ext));
    await rpc.request({ type: "prompt", message: "/boom" });
    await rpc.waitFor((frame) => frame.type === "extension_error" && frame.error === "stray timer error");
    const stray = rpc.ofType("extension_error").map((frame) => [frame.extensionPath, frame.event, frame.error]);
    expect(stray).toEqual(
      expect.arrayContaining([
        [ext, "uncaught", "stray rejection"],
        [ext, "uncaught", "stray timer error"],
      ]),
    );
    expect((await rpc.request({ type: "get_state" })).success).toBe(true);
    expect(await rpc.close()).toBe(0);
  });

  test("a missing -e path is reported and the run goes on", async () => {
    const result = await print(["-e", join(fixture.home.home, "nope.ts"), "hi"]);
    expect(result.exitCode).toBe(0);
    expect(result.stderr).toContain("nope.ts");
  });
});
