/**
 * What a template's placeholders become for the arguments a user types after
 * `/name` (reference prompt-templates.md): the exact text the model receives.
 */
import { describe, expect, test } from "bun:test";
import { splitArguments, substituteArguments } from "../../src/resources/template-args.ts";

const expand = (template: string, typed: string) => substituteArguments(template, splitArguments(typed));

describe("arguments", () => {
  test("split on blanks; quotes group words and are dropped; an unclosed quote runs to the end", () => {
    expect(splitArguments(`a  "b c" 'd "e"' f`)).toEqual(["a", "b c", 'd "e"', "f"]);
    expect(splitArguments(`it's here`)).toEqual(["its here"]);
    expect(splitArguments(`"" x`)).toEqual(["", "x"]);
    expect(splitArguments("   ")).toEqual([]);
  });

  test("$1… by position, $@ and $ARGUMENTS for all, ${@:N} and ${@:N:L} for slices", () => {
    const template = "1=$1 2=$2 all=$@ args=$ARGUMENTS from2=${@:2} two=${@:2:2}";
    expect(expand(template, "a b c d")).toBe("1=a 2=b all=a b c d args=a b c d from2=b c d two=b c");
  });

  test("a position past the arguments is empty, as are slices past the end", () => {
    expect(expand("[$1][$9][${@:5}][${@:3:2}]", "only two")).toBe("[only][][][]");
    expect(expand("[$1][$@]", "")).toBe("[][]");
  });

  test("positions of two digits are one placeholder", () => {
    expect(expand("$10-$1", "a b c d e f g h i j")).toBe("j-a");
  });

  test("an argument that looks like a placeholder is kept as typed", () => {
    expect(expand("say $1 then $2", `'$2' '$ARGUMENTS'`)).toBe("say $2 then $ARGUMENTS");
  });

  test("text without placeholders is unchanged and the arguments are not appended", () => {
    expect(expand("plain", "x y")).toBe("plain");
  });
});
