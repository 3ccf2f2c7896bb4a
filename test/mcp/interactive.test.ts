/**
 * MCP in the terminal (tmux): `@server:` offers that server's resources and the chosen
 * one's text goes with the prompt to the model; /mcp shows a failing server with its
 * error beside a working one with its counts, and `/mcp reconnect` connects it once
 * its entry is fixed; a server that wants OAuth says so, and `/mcp login` signs in
 * (the test plays the browser) and connects it.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { send, withPane } from "../modes/interactive/fixture.ts";
import { bodyText, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";
import { startOAuthServers } from "./support/oauth-servers.ts";

describe("MCP in the terminal", () => {
  test("@server: offers the server's resources; the chosen one's text reaches the model", async () => {
    await withPane(
      async ({ fake, pane }) => {
        // The server's resources are known once it is connected.
        send(pane, "/mcp");
        await pane.waitFor("1 prompt, 2 resources");
        fake.server.enqueue({ content: [{ type: "text", text: "noted" }] });
        // `@do` offers the server; Tab takes it, and its resources are offered.
        pane.type("summarize @do");
        await pane.waitFor("resources of MCP server docs");
        pane.keys("Tab");
        await pane.waitFor("summarize @docs:");
        // The next key lists the resources that match (both URIs hold an "m").
        pane.type("m");
        const screen = await pane.waitFor("memo://notes/today");
        expect(screen).toContain("file:///docs/guide.md");
        pane.type("emo");
        await pane.waitFor((text) => text.includes("memo://notes/today") && !text.includes("file:///docs/guide.md"));
        pane.keys("Tab");
        await pane.waitFor("summarize @docs:memo://notes/today");
        send(pane, "please");
        await pane.waitFor("noted");
        const sent = bodyText(fake.server.requests.at(-1)!);
        expect(sent).toContain("Notes: buy oranges.");
        expect(sent).toContain('<resource server=\\"docs\\" uri=\\"memo://notes/today\\">');
        expect(sent).toContain("summarize @docs:memo://notes/today please");
      },
      {
        before: (fakeHome) => {
          writeMcpJson(join(fakeHome.home.agentDir, "mcp.json"), { docs: stdioServer(join(fakeHome.home.home, "events.log"), { MCP_NAME: "docs", MCP_RESOURCES: "1" }) });
        },
      },
    );
  }, 60_000);

  test("/mcp shows a failing server's error and a working one's tools; /mcp reconnect after a fix connects it", async () => {
    let mcpJson = "";
    let events = "";
    await withPane(
      async ({ fake, pane }) => {
        await pane.waitFor('MCP server "bad"');
        send(pane, "/mcp");
        let screen = await pane.waitFor("/mcp reconnect <name>");
        expect(screen).toMatch(/bad\s+failed/);
        expect(screen).toContain("fatal: the test server was told to crash");
        expect(screen).toMatch(/good\s+connected/);
        expect(screen).toContain("11 tools, 1 prompt, 0 resources");

        writeMcpJson(mcpJson, { good: stdioServer(events, { MCP_NAME: "good" }), bad: stdioServer(events, { MCP_NAME: "bad" }) });
        send(pane, "/mcp reconnect bad");
        screen = await pane.waitFor(/bad\s+connected/);
        fake.server.enqueue(
          { content: [{ type: "toolCall", id: "c1", name: "mcp__bad__echo", arguments: { text: "fixed" } }] },
          { content: [{ type: "text", text: "all good" }] },
        );
        send(pane, "try it");
        await pane.waitFor("all good");
        expect(bodyText(fake.server.requests.at(-1)!)).toContain("bad echo: fixed");

        send(pane, "/mcp reconnect nope");
        await pane.waitFor('no MCP server "nope"');
      },
      {
        height: 50,
        before: (fakeHome) => {
          mcpJson = join(fakeHome.home.agentDir, "mcp.json");
          events = join(fakeHome.home.home, "events.log");
          writeMcpJson(mcpJson, { good: stdioServer(events, { MCP_NAME: "good" }), bad: stdioServer(events, { MCP_NAME: "bad", MCP_CRASH: "1" }) });
        },
      },
    );
  }, 60_000);

  test("a server that wants a sign-in: /mcp login shows the address, and once the browser returns the server connects", async () => {
    const oauth = await startOAuthServers();
    const port = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("") });
    const callbackPort = String(port.port);
    port.stop(true);
    try {
      await withPane(
        async ({ fake, pane }) => {
          await pane.waitFor("(in the terminal: /mcp login srv)");
          send(pane, "/mcp login srv");
          const screen = await pane.waitFor(/http\S+\/authorize\?\S+/);
          const address = /(http\S+\/authorize\?\S+)/.exec(screen)![1]!;
          expect(await (await fetch(address)).text()).toContain("You can close this tab");
          await pane.waitFor(/srv\s+connected/);
          fake.server.enqueue(
            { content: [{ type: "toolCall", id: "c1", name: "mcp__srv__echo", arguments: { text: "after login" } }] },
            { content: [{ type: "text", text: "worked" }] },
          );
          send(pane, "go");
          await pane.waitFor("worked");
          expect(bodyText(fake.server.requests.at(-1)!)).toContain("locked echo: after login");
        },
        {
          width: 600,
          env: { XCSH_TEST_OAUTH_CALLBACK_PORT: callbackPort },
          before: (fakeHome) => writeMcpJson(join(fakeHome.home.agentDir, "mcp.json"), { srv: { url: oauth.mcpUrl, exposure: "direct" } }),
        },
      );
    } finally {
      await oauth.close();
    }
  }, 60_000);

  test("a server's question (elicitation) is asked in dialogs, and the answers reach it", async () => {
    await withPane(
      async ({ fake, pane }) => {
        send(pane, "/mcp");
        await pane.waitFor(/asker\s+connected/);
        fake.server.enqueue(
          { content: [{ type: "toolCall", id: "a1", name: "mcp__asker__ask", arguments: {} }] },
          { content: [{ type: "text", text: "thanks for answering" }] },
        );
        send(pane, "ask me");
        await pane.waitFor("Who are you?");
        pane.type("y");
        await pane.waitFor("Name");
        pane.type("Ada");
        pane.keys("Enter");
        await pane.waitFor("large");
        pane.keys("Enter");
        await pane.waitFor("thanks for answering");
        expect(bodyText(fake.server.requests.at(-1)!)).toContain('answer: accept {\\"name\\":\\"Ada\\",\\"size\\":\\"small\\"}');
      },
      {
        before: (fakeHome) => {
          writeMcpJson(join(fakeHome.home.agentDir, "mcp.json"), { asker: stdioServer(join(fakeHome.home.home, "events.log"), { MCP_NAME: "asker", MCP_ASK: "1" }) });
        },
      },
    );
  }, 60_000);
});
