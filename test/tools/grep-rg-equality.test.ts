/**
 * grep's results held equal to ripgrep's on real code, so that speed work on
 * the search cannot drop or invent matches. The fixture is a copy of a few
 * packages from this project's node_modules, laid out as installed (minified
 * bundles, source maps, .d.ts files, images); the grep tool runs in the built
 * binary, called by the fake LLM server; rg runs on the same folder with
 * xcsh's rules (hidden files searched, node_modules and .git skipped, files
 * over 10 MB skipped). Every match and context line must be the same — same
 * files, same line numbers, same text (where xcsh does not cut the line) and,
 * since xcsh reports in path order, the same order once rg's is sorted.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GREP_MAX_LINE_LENGTH } from "../../src/tools/truncate.ts";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";

const RG = Bun.which("rg");
if (!RG) console.warn("grep-rg-equality: rg (ripgrep) is not on PATH, so grep is not compared with it; install ripgrep to run these tests");
/** Packages of varied shape: node's .d.ts files, minified bundles with source maps, many small modules, binary images. */
const PACKAGES = ["undici", "@types/node", "protobufjs", "diff", "yaml", "highlight.js", "lru-cache"];
const NODE_MODULES = join(import.meta.dir, "..", "..", "node_modules");

interface GrepCase {
  pattern: string;
  literal?: boolean;
  ignoreCase?: boolean;
  glob?: string;
  context?: number;
}

const CASES: GrepCase[] = [
  { pattern: "createServer", literal: true },
  { pattern: "function\\s+\\w+Stream\\(" },
  { pattern: "readablestream", ignoreCase: true },
  { pattern: "new Promise((resolve", literal: true },
  { pattern: "export (default )?function \\w+", glob: "*.js" },
  { pattern: "function \\w+Patch", glob: "diff/libcjs/**/*.js" },
  { pattern: "^import .* from ['\"]node:", glob: "*.d.ts" },
  { pattern: "\\bBuffer\\.from\\(" },
  { pattern: "(TODO|FIXME):" },
  { pattern: "todo", literal: true, ignoreCase: true, glob: "*.js" },
  { pattern: "\\p{Lu}{3,}_ERR\\b" },
  { pattern: "createServer", context: 2 },
  { pattern: "function\\s+\\w+Stream\\(", context: 1, glob: "*.d.ts" },
  // Large files read in pieces (see largeFiles): needles across the pieces' edges.
  { pattern: "QzNeedleBoundary", literal: true },
  { pattern: "QzNeedle\\w+ary" },
  { pattern: "GrüßeQz", literal: true },
];

/**
 * Files past grep's first read (64 KiB), which it scans in 256 KiB pieces for the rarest
 * needle before reading them whole: a needle across the first read's end, across a piece's
 * end, at the file's very end, in a file past 1 MiB (read whole into huge pages), and a
 * two-byte character cut by an edge.
 */
function largeFiles(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const FIRST = 64 * 1024;
  const PIECE = 256 * 1024;
  const filler = (size: number) => Buffer.from("const filler = 'just some ordinary line of code';\n".repeat(Math.ceil(size / 51))).subarray(0, size);
  const withNeedles = (size: number, needle: string, offsets: number[]) => {
    const bytes = filler(size);
    for (const offset of offsets) Buffer.from(needle).copy(bytes, offset);
    return bytes;
  };
  writeFileSync(join(folder, "a-first-read-edge.js"), withNeedles(1_000_000, "QzNeedleBoundary", [FIRST - 8]));
  writeFileSync(join(folder, "b-piece-edge.js"), withNeedles(1_000_000, "QzNeedleBoundary", [FIRST + PIECE - 8]));
  writeFileSync(join(folder, "c-very-end.js"), Buffer.concat([filler(900_000), Buffer.from("QzNeedleBoundary")]));
  writeFileSync(join(folder, "d-second-piece-edge.js"), withNeedles(1_000_000, "QzNeedleBoundary", [FIRST + 2 * PIECE - 3, 900_000]));
  writeFileSync(join(folder, "e-none.js"), filler(1_000_000));
  writeFileSync(join(folder, "f-at-first-read-end.js"), withNeedles(70_000, "QzNeedleBoundary", [FIRST]));
  // Past 1 MiB the whole read goes into a buffer in huge pages.
  writeFileSync(join(folder, "h-huge-buffer.js"), withNeedles(3_000_000, "QzNeedleBoundary", [1_500_000, 2_999_000]));
  // "ü" is two bytes: the edge falls between them.
  writeFileSync(join(folder, "g-cut-character.js"), withNeedles(600_000, "GrüßeQz", [FIRST + PIECE - 3]));
}

/** One line of output: a match or a context line, by file and 1-based number. */
interface Line {
  kind: "match" | "context";
  path: string;
  line: number;
  text: string;
}

const key = (line: Line) => `${line.kind} ${line.path}:${line.line}`;
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function ripgrep(root: string, search: GrepCase): Line[] {
  const args = ["--json", "--hidden", "--no-require-git", "--max-filesize", "10M", "--glob=!node_modules/", "--glob=!.git/"];
  if (search.ignoreCase) args.push("--ignore-case");
  if (search.literal) args.push("--fixed-strings");
  if (search.glob) args.push("--glob", search.glob);
  if (search.context) args.push("--context", String(search.context));
  const result = Bun.spawnSync([RG!, ...args, "--regexp", search.pattern], { cwd: root, stdout: "pipe", stderr: "pipe", maxBuffer: 256 * 1024 * 1024 });
  const lines: Line[] = [];
  for (const row of result.stdout.toString().split("\n")) {
    if (!row) continue;
    const event = JSON.parse(row) as { type: string; data: { path: { text: string }; line_number: number; lines: { text?: string; bytes?: string } } };
    if (event.type !== "match" && event.type !== "context") continue;
    const raw = event.data.lines.text ?? Buffer.from(event.data.lines.bytes ?? "", "base64").toString("utf8");
    lines.push({ kind: event.type, path: event.data.path.text, line: event.data.line_number, text: raw.replace(/\r?\n$/, "") });
  }
  return lines.sort((a, b) => byCodeUnit(a.path, b.path) || a.line - b.line);
}

/** xcsh's `path:N: text` and `path-N- text` lines; `--` and notices are not results. */
function parseGrepOutput(text: string): { lines: Line[]; truncated: boolean } {
  const lines: Line[] = [];
  for (const row of text.split("\n")) {
    const match = /^(.+?)([:-])(\d+)\2 (.*)$/.exec(row);
    if (match) lines.push({ kind: match[2] === ":" ? "match" : "context", path: match[1], line: Number(match[3]), text: match[4] });
  }
  return { lines, truncated: /\n\[Output truncated/.test(text) };
}

describe.skipIf(!RG)("grep gives ripgrep's results on real code", () => {
  if (!RG) return;
  ensureBinary();
  const root = mkdtempSync(join(tmpdir(), "xcsh-grep-rg-"));
  for (const name of PACKAGES) {
    if (existsSync(join(NODE_MODULES, name))) cpSync(join(NODE_MODULES, name), join(root, name), { recursive: true });
  }
  largeFiles(join(root, "zz-large"));
  const fixture = makeFakeModelHome();
  afterAll(async () => {
    rmSync(root, { recursive: true, force: true });
    await (await fixture).cleanup();
  });

  async function grepThroughBinary(search: GrepCase): Promise<string> {
    const { home, server } = await fixture;
    const args = { ...search, limit: 5000 };
    server.enqueue({ content: [{ type: "toolCall", id: "t1", name: "grep", arguments: args }] }, { content: [{ type: "text", text: "done" }] });
    const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--tools", "grep", "search"], { env: home.env, cwd: root, timeoutMs: 60_000 });
    expect(result.exitCode).toBe(0);
    const messages = server.requests.at(-1)!.body.messages as { role: string; content: unknown }[];
    const last = messages.at(-1)!;
    expect(last.role).toBe("tool");
    return typeof last.content === "string" ? last.content : JSON.stringify(last.content);
  }

  test("the fixture holds the packages", () => {
    expect(PACKAGES.filter((name) => existsSync(join(root, name))).length).toBeGreaterThanOrEqual(4);
  });

  let withMatches = 0;
  test.each(CASES)("%j", async (search) => {
    const expected = ripgrep(root, search);
    if (expected.length > 0) withMatches++;
    const ours = parseGrepOutput(await grepThroughBinary(search));
    if (expected.length === 0) {
      expect(ours.lines).toEqual([]);
      return;
    }
    // Output past 50KB is cut at the head; what is shown must be rg's first lines.
    const compared = ours.truncated ? expected.slice(0, ours.lines.length) : expected;
    expect(ours.lines.map(key)).toEqual(compared.map(key));
    const sameText = (line: Line, index: number) => compared[index].text.length > GREP_MAX_LINE_LENGTH || line.text === compared[index].text;
    const differingText = ours.lines.filter((line, index) => !sameText(line, index));
    expect(differingText).toEqual([]);
  }, 60_000);

  test("most patterns found something to compare", () => {
    expect(withMatches).toBeGreaterThanOrEqual(CASES.length - 2);
  });
});
