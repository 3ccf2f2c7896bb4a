/**
 * grep names the files it did not search for their size, through the built binary: the
 * model asks for a needle that is only in a log just over the size limit, and the tool
 * result it gets back names that log instead of a bare "No matches found".
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { MAX_SEARCHED_FILE_BYTES } from "../../src/tools/grep-search.ts";
import { makeFakeModelHome, runXcsh } from "../support/cli.ts";

const fixture = await makeFakeModelHome();
afterAll(() => fixture.cleanup());

test("a needle only in a file just over the size limit: the model is told that file was skipped", async () => {
  const { home, server } = fixture;
  const project = join(home.home, "project");
  mkdirSync(join(project, "logs"), { recursive: true });
  writeFileSync(join(project, "README.md"), "nothing here\n");
  // Text first (no NUL in the block that tells binary files), then a hole up to one byte over the limit.
  writeFileSync(join(project, "logs", "server.log"), `ERROR needle-7731 in handler\n${"\n".repeat(16 * 1024)}`);
  truncateSync(join(project, "logs", "server.log"), MAX_SEARCHED_FILE_BYTES + 1);

  server.enqueue({ content: [{ type: "toolCall", id: "t1", name: "grep", arguments: { pattern: "needle-7731" } }] }, { content: [{ type: "text", text: "done" }] });
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--tools", "grep", "find the error"], { env: home.env, cwd: project, timeoutMs: 30_000 });
  expect(result.exitCode).toBe(0);
  const toolMessage = (server.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).at(-1)!;
  expect(toolMessage.role).toBe("tool");
  const text = typeof toolMessage.content === "string" ? toolMessage.content : JSON.stringify(toolMessage.content);
  expect(text).toContain("No matches found");
  expect(text).toContain("[Skipped 1 file over 10.0MB without searching: logs/server.log. Search them with rg or grep through bash if they matter.]");
}, 60_000);
