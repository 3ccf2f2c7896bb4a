/**
 * Keys and ways out, in the built binary in tmux: the thinking toggle, Esc
 * and Alt+Up with messages still queued, Alt+Enter on an idle session, and SIGTERM
 * giving the terminal back.
 */
import { describe, expect, test } from "bun:test";
import { editorText, send, withPane } from "./fixture.ts";


describe("keys", () => {
  test("Ctrl+T shows the model's thinking, and again folds it", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "thinking", thinking: "The user greets me; a short reply will do." }, { type: "text", text: "Hello there." }] });
      send(pane, "hi");
      const folded = await pane.waitFor("Hello there.");
      expect(folded).toContain("Thinking… (ctrl+t to show)");
      expect(folded).not.toContain("a short reply will do");
      pane.keys("C-t");
      await pane.waitFor("The user greets me; a short reply will do.");
      pane.keys("C-t");
      await pane.waitFor((screen) => !screen.includes("a short reply will do") && screen.includes("Thinking…"));
    });
  });

  test("Esc while messages are queued aborts the run and puts them back in the editor, steers first", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "A slow answer, one word at a time, taking its time to finish properly." }], chunkSize: 1, chunkDelayMs: 150 });
      send(pane, "start");
      await pane.waitFor("A slow");
      send(pane, "steer this way");
      await pane.waitFor("steer: steer this way");
      pane.type("then this");
      pane.keys("M-Enter");
      await pane.waitFor("follow-up: then this");
      pane.type("draft");
      await pane.waitFor((text) => editorText(text) === "draft");
      pane.keys("Escape");
      await pane.waitFor("Aborted");
      const screen = await pane.waitFor((text) => editorText(text) === "steer this way\nthen this\ndraft");
      expect(screen).not.toContain("steer: steer this way");
      expect(screen).not.toContain("follow-up: then this");
      // Nothing queued reached the model.
      await Bun.sleep(300);
      expect(fake.server.requests.length).toBe(1);
      // The next run's working line is the usual one, not "Aborting…".
      pane.keys("C-c");
      fake.server.enqueue({ content: [{ type: "text", text: "Second run, slowly." }], chunkSize: 1, chunkDelayMs: 100 });
      send(pane, "again");
      const working = await pane.waitFor("esc to abort");
      expect(working).not.toContain("Aborting");
      await pane.waitFor("Second run, slowly.", 20_000);
    });
  });

  test("Alt+Up takes queued messages back into the editor; the run goes on and nothing queued is sent", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "A slow answer, one word at a time, to the very end." }], chunkSize: 1, chunkDelayMs: 60 });
      send(pane, "start");
      await pane.waitFor("A slow");
      send(pane, "on second thought");
      await pane.waitFor("steer: on second thought");
      pane.keys("M-Up");
      await pane.waitFor((text) => editorText(text) === "on second thought" && !text.includes("steer: on second thought"));
      await pane.waitFor("to the very end.", 20_000);
      await Bun.sleep(300);
      expect(fake.server.requests.length).toBe(1);
      expect(pane.screen()).not.toContain("Aborted");
    });
  });

  test("Alt+Enter on an idle session sends the prompt at once", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "Sent straight away." }] });
      pane.type("no waiting");
      pane.keys("M-Enter");
      await pane.waitFor("Sent straight away.");
      expect(JSON.stringify(fake.server.requests.at(-1)!.body.messages.at(-1))).toContain("no waiting");
      expect(editorText(pane.screen())).toBe("");
    });
  });

  test("SIGTERM ends xcsh and gives the terminal back as it was (settings and cursor)", async () => {
    await withPane(async ({ fake, pane }) => {
      fake.server.enqueue({ content: [{ type: "text", text: "Streaming on and on and on and on and on." }], chunkSize: 1, chunkDelayMs: 200 });
      send(pane, "talk");
      await pane.waitFor("Streaming");
      const shell = pane.format("#{pane_pid}");
      const child = Bun.spawnSync(["ps", "-o", "pid=", "--ppid", shell]).stdout.toString().trim().split(/\s+/)[0]!;
      expect(Number(child)).toBeGreaterThan(0);
      process.kill(Number(child), "SIGTERM");
      expect(await pane.waitForExit()).toBe(143);
      expect(pane.sttyAfter()).toBe(pane.sttyBefore());
      expect(pane.format("#{cursor_flag}")).toBe("1");
    });
  });

  test("Ctrl+D with a draft keeps the session; Ctrl+C twice while the agent streams exits and restores the terminal", async () => {
    await withPane(async ({ fake, pane }) => {
      pane.type("a draft");
      await pane.waitFor((screen) => editorText(screen) === "a draft");
      pane.keys("C-d");
      await Bun.sleep(300);
      expect(pane.screen()).not.toContain("xcsh exited");
      pane.keys("C-c");
      await pane.waitFor((screen) => editorText(screen) === "");
      fake.server.enqueue({ content: [{ type: "text", text: "Never ending story, told very slowly." }], chunkSize: 1, chunkDelayMs: 200 });
      send(pane, "tell me");
      await pane.waitFor("Never");
      // The first press stops the run; the second, right after, exits.
      pane.keys("C-c");
      await pane.waitFor(/Aborted|aborted/);
      pane.keys("C-c");
      expect(await pane.waitForExit()).toBe(0);
      expect(pane.sttyAfter()).toBe(pane.sttyBefore());
      expect(pane.format("#{cursor_flag}")).toBe("1");
    });
  });
});
