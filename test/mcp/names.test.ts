/**
 * MCP tool names as pi 1.6.0 makes them, through the built binary: `-` becomes `_`
 * (`add-note` is `mcp__t__add_note`), tools of a server whose names then meet all get a
 * hash suffix, and the name xcsh gave before (`mcp__t__add-note`) is still accepted in
 * a call, though never declared.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";
import { bodyText, offeredTools, stdioServer, writeMcpJson } from "./support/mcp-fixture.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());

describe("MCP tool names", () => {
  test("`-` becomes `_`, names that meet get hash suffixes, and the old dashed name still calls the tool", async () => {
    writeMcpJson(join(home.agentDir, "mcp.json"), { t: stdioServer(join(home.home, "names.log"), { MCP_NAME: "t", MCP_DASHED: "1" }) });
    server.enqueue(
      {
        content: [
          { type: "toolCall", id: "n1", name: "mcp__t__add_note", arguments: { text: "new name" } },
          { type: "toolCall", id: "n2", name: "mcp__t__add-note", arguments: { text: "old name" } },
        ],
      },
      { content: [{ type: "text", text: "done" }] },
    );
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "note it"], { env: home.env, cwd: home.home, timeoutMs: 25_000 });
    expect(result.exitCode).toBe(0);
    const [first, second] = server.requests.slice(-2);
    const offered = offeredTools(first);
    expect(offered).toContain("mcp__t__add_note");
    expect(offered).not.toContain("mcp__t__add-note");
    const weather = offered.filter((name) => name.startsWith("mcp__t__get_weather"));
    expect(weather).toHaveLength(2);
    for (const name of weather) expect(name).toMatch(/^mcp__t__get_weather_[0-9a-f]{8}$/);
    expect(bodyText(second)).toContain("noted: new name");
    expect(bodyText(second)).toContain("noted: old name");
    expect(bodyText(second)).not.toContain("not found");
  }, 30_000);
});
