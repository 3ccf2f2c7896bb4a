/**
 * What a template's placeholders become for the arguments a user types after
 * `/name` (reference prompt-templates.md): the exact text the model receives.
 */
import { describe, expect, test } from "bun:test";
import { splitArguments, substituteArguments } from "../../src/resources/template-args.ts";

const expand = (template: string, typed: string) => substituteArguments(template, splitArguments(typed));

describe("arguments", () => {
  test("split on blanks; quotes group words and are dropped; an unclosed quote is text (pi 1.5.x)", () => {
    expect(splitArguments(`a  "b c" 'd "e"' f`)).toEqual(["a", "b c", 'd "e"', "f"]);
    expect(splitArguments(`it's here`)).toEqual(["it's", "here"]);
    expect(splitArguments(`"" x`)).toEqual(["", "x"]);
    expect(splitArguments("   ")).toEqual([]);
    expect(splitArguments(`'unclosed a`)).toEqual(["'unclosed", "a"]);
    expect(splitArguments(`"a b"c d`)).toEqual(["a bc", "d"]);
    expect(splitArguments(`a"b c"`)).toEqual(['a"b', 'c"']);
  });

  test("inside quotes a backslash before the same quote is that quote; other backslashes stay", () => {
    expect(splitArguments(`"the \\"fast\\" path" x`)).toEqual(['the "fast" path', "x"]);
    expect(splitArguments(`'a\\'b' "a\\'b"`)).toEqual(["a'b", "a\\'b"]);
    // The only quote after the opening one is escaped: not closed, so all of it is text.
    expect(splitArguments(`"ab\\" c`)).toEqual(['"ab\\"', "c"]);
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
