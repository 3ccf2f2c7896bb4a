/**
 * Where installed packages' skills, prompt templates and themes join the resource places:
 * after the settings lists, from the manifest or the conventional folders, a project's
 * packages only once the project is trusted without a question. (Skills and templates are
 * also used through the binary in install.test.ts; themes are drawn only in the terminal UI.)
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skillPlaces, templatePlaces, themePlaces } from "../../src/resources/resource-places.ts";
import { writeFiles } from "./package-fixtures.ts";

const root = mkdtempSync(join(tmpdir(), "xcsh-pkg-places-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const agentDir = join(root, "agent");
const cwd = join(root, "project");
const userPkg = writeFiles(join(root, "user-pkg"), {
  "package.json": JSON.stringify({ name: "user-pkg", xcsh: { themes: ["./look/*.json"] }, pi: { themes: ["./ignored"] } }),
  "look/night.json": "{}",
  ignored: "{}",
  "skills/one/SKILL.md": "---\nname: one\ndescription: d\n---\n",
});
const projectPkg = writeFiles(join(root, "project-pkg"), { "prompts/p.md": "body\n" });
writeFiles(cwd, { ".xcsh/settings.json": JSON.stringify({ packages: [projectPkg] }) });

const options = { cwd, agentDir, home: root, userSettingsPaths: [], projectSettingsPaths: [], cliPaths: [], extensionPaths: [], noDiscovery: false };
const paths = (places: { path: string }[]) => places.map((place) => place.path);

describe("installed packages' resource places", () => {
  test("a package's manifest (xcsh key before pi's) and conventional folders; an untrusted project's packages are left out", () => {
    writeFiles(agentDir, { "settings.json": JSON.stringify({ packages: [userPkg] }) });
    expect(paths(themePlaces(options))).toContain(join(userPkg, "look", "night.json"));
    expect(paths(themePlaces(options))).not.toContain(join(userPkg, "ignored"));
    expect(paths(skillPlaces(options))).toContain(join(userPkg, "skills"));
    expect(paths(templatePlaces(options))).not.toContain(join(projectPkg, "prompts"));
  });

  test("once the project is trusted by the settings, its packages' places come first", () => {
    writeFiles(agentDir, { "settings.json": JSON.stringify({ packages: [userPkg], defaultProjectTrust: "trust" }) });
    const templates = templatePlaces(options).filter((place) => place.path === join(projectPkg, "prompts"));
    expect(templates).toEqual([expect.objectContaining({ scope: "project", source: "local" })]);
  });

  test("--no-skills style discovery off leaves packages out too", () => {
    expect(paths(skillPlaces({ ...options, noDiscovery: true }))).not.toContain(join(userPkg, "skills"));
  });
});
