/**
 * Package sources as people type them (pi's forms): what each becomes, and the identity
 * that makes two spellings one package. Malformed ones are errors that show the form.
 */
import { describe, expect, test } from "bun:test";
import { parseSource, sourceIdentity } from "../../src/packages/source.ts";

const parse = (typed: string) => parseSource(typed, "/work");

describe("package sources", () => {
  test("npm names, scoped names and versions", () => {
    expect(parse("npm:pi-tools")).toMatchObject({ type: "npm", name: "pi-tools" });
    expect(parse("npm:@scope/pi-tools@1.2.0")).toMatchObject({ type: "npm", name: "@scope/pi-tools", version: "1.2.0" });
    expect(parse("npm:@scope/pi-tools")).toMatchObject({ type: "npm", name: "@scope/pi-tools" });
    expect(parse("npm:@scope/pi-tools")).not.toHaveProperty("version");
  });

  test("git shorthand, scp form and URLs; the ref after @", () => {
    expect(parse("git:github.com/acme/tools@v1")).toMatchObject({ type: "git", repo: "https://github.com/acme/tools", host: "github.com", path: "acme/tools", ref: "v1" });
    expect(parse("git:git@github.com:acme/tools")).toMatchObject({ type: "git", repo: "git@github.com:acme/tools", host: "github.com", path: "acme/tools" });
    expect(parse("https://gitlab.com/acme/tools.git")).toMatchObject({ type: "git", repo: "https://gitlab.com/acme/tools.git", host: "gitlab.com", path: "acme/tools" });
    expect(parse("ssh://git@example.org/acme/tools@main")).toMatchObject({ type: "git", host: "example.org", path: "acme/tools", ref: "main" });
  });

  test("anything else is a local path, taken from the base folder", () => {
    expect(parse("./pkg")).toEqual({ type: "local", typed: "./pkg", path: "/work/pkg" });
    expect(parse("/abs/ext.ts")).toMatchObject({ type: "local", path: "/abs/ext.ts" });
  });

  test("two spellings of one package have one identity", () => {
    const id = (typed: string) => sourceIdentity(parse(typed) as any);
    expect(id("npm:@scope/x@1.0.0")).toBe(id("npm:@scope/x"));
    expect(id("git:github.com/acme/tools@v1")).toBe(id("https://github.com/acme/tools"));
    expect(id("git:github.com/acme/tools")).toBe(id("git:git@github.com:acme/tools"));
  });

  test("malformed sources say what was expected", () => {
    expect(parse("npm:")).toEqual({ error: expect.stringContaining("is not an npm package name") });
    expect(parse("npm:bad name")).toEqual({ error: expect.stringContaining("is not an npm package name") });
    expect(parse("npm:x@")).toEqual({ error: expect.stringContaining("the version after \"@\" is empty") });
    expect(parse("git:nohost/repo")).toEqual({ error: expect.stringContaining("not a git source") });
    expect(parse("git:github.com/../etc")).toEqual({ error: expect.stringContaining("not a git source") });
    expect(parse("git:github.com/acme/tools@--orphan")).toEqual({ error: expect.stringContaining("not a git source") });
    expect(parse("https://")).toEqual({ error: expect.stringContaining("not a git source") });
    expect(parse("  ")).toEqual({ error: expect.stringContaining("empty package source") });
  });
});
