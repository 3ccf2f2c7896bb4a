import { describe, expect, test } from "bun:test";
import { parseArgs } from "../../src/cli/args.ts";

function parsed(argv: string[]) {
  const result = parseArgs(argv);
  if (!result.ok) throw new Error(result.error);
  return result.args;
}

describe("parseArgs", () => {
  test("a prompt word that names an Object.prototype member stays prompt text", () => {
    const args = parsed(["-p", "explain", "constructor", "toString"]);
    expect(args.messages).toEqual(["explain", "constructor", "toString"]);
  });

  test("--skill and --prompt-template repeat and keep their order", () => {
    const args = parsed(["--skill", "a", "--prompt-template=t1", "--skill", "b", "--prompt-template", "t2"]);
    expect(args.skillPaths).toEqual(["a", "b"]);
    expect(args.promptTemplatePaths).toEqual(["t1", "t2"]);
  });

  test("--no-skills, --no-prompt-templates and --no-context-files are switches", () => {
    const args = parsed(["--no-skills", "--no-prompt-templates", "--no-context-files"]);
    expect([args.noSkills, args.noPromptTemplates, args.noContextFiles]).toEqual([true, true, true]);
  });

  test("--export takes the session, and the output path is the next word", () => {
    const args = parsed(["--export", "s.jsonl", "out.html"]);
    expect(args.exportSession).toBe("s.jsonl");
    expect(args.messages).toEqual(["out.html"]);
  });

  test("--skill without a path is refused with a message", () => {
    const result = parseArgs(["--skill"]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain("--skill needs a path");
  });
});
