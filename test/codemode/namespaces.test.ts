/**
 * Tool groups (pi 1.x's `namespace`) in codemode, through the built binary: the
 * codemode description lists tools of no namespace first, then each namespace under
 * a heading with its description (pi 1.6.0's grouping), and a namespace that does not
 * fit the inline budget keeps its heading, marked as not listed. Scripts look an
 * extension's namespace up with describeNamespace() and searchTools({ namespace }),
 * by its name, an alias, or the name as an identifier.
 */
import { afterAll, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureBinary, makeFakeModelHome, runXcsh } from "../support/cli.ts";

ensureBinary();
const fixture = await makeFakeModelHome();
const { home, server } = fixture;
afterAll(() => fixture.cleanup());
beforeEach(() => server.clearScript());

/** An extension with codemode tools: two of the `my-kit` namespace, one of `deploy`, one of none. */
const extension = join(home.home, "kit.ts");
writeFileSync(
  extension,
  `export default function (pi) {
  const tools = [
    ["kit_lint", { name: "my-kit", aliases: ["kit"], description: "Linters and formatters of this project", instructions: "Run kit_lint before kit_format." }, "Runs the project's linters over a path."],
    ["kit_format", { name: "my-kit", aliases: ["kit"], description: "Linters and formatters of this project", instructions: "Run kit_lint before kit_format." }, "Formats the files under a path."],
    ["deploy_preview", { name: "deploy", description: "Preview deployments" }, "Deploys the branch to a preview site."],
    ["weather_now", undefined, "Tells the current weather in a city."],
  ];
  for (const [name, namespace, description] of tools) {
    pi.registerTool({
      name, label: name, description, exposure: "codemode",
      ...(namespace ? { namespace } : {}),
      parameters: { type: "object", properties: { target: { type: "string", description: "What to act on" } }, required: ["target"] },
      async execute(_id, params) { return { content: [{ type: "text", text: name + " on " + params.target }], details: {} }; },
    });
  }
}
`,
);

let count = 0;
async function run(settings: Record<string, unknown>, code?: string) {
  const cwd = join(home.home, `n${++count}`);
  mkdirSync(join(cwd, ".xcsh"), { recursive: true });
  writeFileSync(join(cwd, ".xcsh", "settings.json"), JSON.stringify(settings));
  if (code) server.enqueue({ content: [{ type: "toolCall", id: "c1", name: "codemode", arguments: { code } }] });
  server.enqueue({ content: [{ type: "text", text: "done" }] });
  const result = await runXcsh(["-p", "--model", "fake/m", "--no-session", "--trust-project", "-e", extension, "--tools", "+codemode", "go"], { env: home.env, cwd, timeoutMs: 25_000 });
  expect(result.exitCode).toBe(0);
  const first = server.requests.at(code ? -2 : -1)!;
  const codemode = (first.body.tools as { function: { name: string; description: string } }[]).find((tool) => tool.function.name === "codemode")!;
  const tool = (server.requests.at(-1)!.body.messages as { role: string; content: unknown }[]).filter((message) => message.role === "tool").at(-1);
  return { description: codemode.function.description, toolText: typeof tool?.content === "string" ? tool.content : JSON.stringify(tool?.content) };
}

test("the codemode description lists ungrouped tools first, then each namespace by name under its heading and description", async () => {
  const { description } = await run({});
  const listing = description.slice(description.indexOf("Tools for scripts:"));
  const order = [...listing.matchAll(/^(##+) (.+)$/gm)].map((match) => `${match[1]} ${match[2]}`);
  expect(order).toEqual(["### `weather_now`", "## deploy", "### `deploy_preview`", "## my-kit", "### `kit_lint`", "### `kit_format`"]);
  expect(listing).toContain("## my-kit\nLinters and formatters of this project\n\n### `kit_lint`");
  // Instructions are for describeNamespace(), never listed.
  expect(description).not.toContain("Run kit_lint before kit_format.");
}, 30_000);

test("a namespace past the inline budget keeps its heading and description, marked as not listed", async () => {
  // Room for the ungrouped tool and the small `deploy` group, not for `my-kit`'s two tools.
  const { description } = await run({ codemode: { inlineBudget: 120 } });
  expect(description).toContain("## deploy\nPreview deployments\n\n### `deploy_preview`");
  expect(description).toContain("## my-kit (tools not listed)\nLinters and formatters of this project");
  expect(description).not.toContain("### `kit_lint`");
  expect(description).toContain("2 more tools are callable but not listed here");
}, 30_000);

test("describeNamespace() and searchTools({ namespace }) find an extension's namespace by name, alias or identifier", async () => {
  const { toolText } = await run(
    {},
    [
      'const byName = await describeNamespace("my-kit");',
      'const byIdentifier = await describeNamespace("my_kit");',
      'const byAlias = await describeNamespace("kit");',
      'const found = await searchTools("format", { namespace: "kit" });',
      'const ran = await tools.kit_format({ target: "src" });',
      'return { byName, same: [byIdentifier.name, byAlias.name], found: found.map((tool) => tool.name), ran, none: (await describeNamespace("nope")) === undefined };',
    ].join("\n"),
  );
  expect(toolText).toStartWith("Script completed");
  const value = JSON.parse(toolText.split("Output:\n")[1]!);
  expect(value.byName).toEqual({
    name: "my-kit",
    description: "Linters and formatters of this project",
    instructions: "Run kit_lint before kit_format.",
    tools: ["kit_lint", "kit_format"],
  });
  expect(value.same).toEqual(["my-kit", "my-kit"]);
  expect(value.found[0]).toBe("kit_format");
  expect(value.found).not.toContain("deploy_preview");
  expect(value.ran).toBe("kit_format on src");
  expect(value.none).toBe(true);
}, 30_000);
