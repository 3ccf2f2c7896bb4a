import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  CODE_RUNNING_PROJECT_KEYS,
  projectNeedsTrust,
  resolveBuiltinTrust,
  untrustedProjectNotice,
} from "../../src/extensions/project-trust.ts";
import {
  getTrustFilePath,
  inspectTrustDecision,
  readTrustDecision,
  rememberTrustDecision,
} from "../../src/extensions/trust-store.ts";
import { createConfigSandbox, type ConfigSandbox } from "../config/helpers.ts";

let sandbox: ConfigSandbox;
let agentDir: string;
let cwd: string;
beforeEach(() => {
  sandbox = createConfigSandbox();
  agentDir = sandbox.agentDir;
  cwd = realpathSync(sandbox.projectDir);
});
afterEach(() => sandbox.cleanup());

const trustFile = () => getTrustFilePath(agentDir);
const readTrustFile = () => JSON.parse(readFileSync(trustFile(), "utf8"));

describe("trust.json", () => {
  test("no file: no decision, no warning", () => {
    expect(readTrustDecision(agentDir, cwd)).toBeUndefined();
    expect(inspectTrustDecision(agentDir, cwd)).toEqual({ trusted: undefined });
  });

  test("a remembered decision reads back, in the documented file format", () => {
    expect(rememberTrustDecision(agentDir, cwd, true)).toBeUndefined();
    expect(readTrustDecision(agentDir, cwd)).toBe(true);
    const content = readTrustFile();
    expect(content.version).toBe(1);
    expect(content.projects[cwd].trusted).toBe(true);
    expect(new Date(content.projects[cwd].decidedAt).toISOString()).toBe(content.projects[cwd].decidedAt);

    rememberTrustDecision(agentDir, cwd, false);
    expect(readTrustDecision(agentDir, cwd)).toBe(false);
  });

  test("the agent dir is created when missing", () => {
    const fresh = join(agentDir, "not", "yet");
    expect(rememberTrustDecision(fresh, cwd, true)).toBeUndefined();
    expect(readTrustDecision(fresh, cwd)).toBe(true);
  });

  test("other projects' entries survive, including ones xcsh cannot read", () => {
    writeFileSync(
      trustFile(),
      JSON.stringify({ version: 1, projects: { "/other": { trusted: false, decidedAt: "2024-01-01T00:00:00.000Z" }, "/odd": "kept as is" } }),
    );
    rememberTrustDecision(agentDir, cwd, true);
    const content = readTrustFile();
    expect(content.projects["/other"]).toEqual({ trusted: false, decidedAt: "2024-01-01T00:00:00.000Z" });
    expect(content.projects["/odd"]).toBe("kept as is");
    expect(readTrustDecision(agentDir, "/other")).toBe(false);
    expect(readTrustDecision(agentDir, "/odd")).toBeUndefined();
  });

  test("the write is atomic: no temp file is left beside trust.json", () => {
    rememberTrustDecision(agentDir, cwd, true);
    rememberTrustDecision(agentDir, "/another", false);
    expect(readdirSync(agentDir).filter((name) => name.startsWith("trust"))).toEqual(["trust.json"]);
  });

  test("a project reached through a symlink shares its decision", () => {
    const link = join(sandbox.agentDir, "..", "project-link");
    symlinkSync(cwd, link);
    rememberTrustDecision(agentDir, link, true);
    expect(readTrustDecision(agentDir, cwd)).toBe(true);
    expect(Object.keys(readTrustFile().projects)).toEqual([cwd]);
  });

  test("a corrupt file counts as empty with a warning, and is backed up before it is replaced", () => {
    writeFileSync(trustFile(), "{ this is not json");
    const read = inspectTrustDecision(agentDir, cwd);
    expect(read.trusted).toBeUndefined();
    expect(read.warning).toContain(trustFile());
    expect(read.warning).toContain("not valid JSON");

    const warning = rememberTrustDecision(agentDir, cwd, true);
    expect(warning).toContain("replaced");
    expect(readFileSync(`${trustFile()}.corrupt`, "utf8")).toBe("{ this is not json");
    expect(readTrustDecision(agentDir, cwd)).toBe(true);
    expect(inspectTrustDecision(agentDir, cwd).warning).toBeUndefined();
  });

  test("a file of the wrong shape is corrupt too", () => {
    writeFileSync(trustFile(), JSON.stringify({ version: 1, projects: [] }));
    expect(inspectTrustDecision(agentDir, cwd).warning).toContain('expected {"version": 1');
  });

  test("a file from a newer xcsh is left alone and the decision is not remembered", () => {
    const newer = JSON.stringify({ version: 2, projects: { [cwd]: { trusted: true } } });
    writeFileSync(trustFile(), newer);
    expect(readTrustDecision(agentDir, cwd)).toBeUndefined();
    const warning = rememberTrustDecision(agentDir, cwd, false);
    expect(warning).toContain("newer xcsh");
    expect(warning).toContain("not remembered");
    expect(readFileSync(trustFile(), "utf8")).toBe(newer);
  });

  test("a trust.json that cannot be read is left alone, with a warning", () => {
    mkdirSync(trustFile()); // a folder where the file should be
    expect(inspectTrustDecision(agentDir, cwd).warning).toContain("cannot be read");
    expect(rememberTrustDecision(agentDir, cwd, true)).toContain("not remembered");
    expect(readdirSync(trustFile())).toEqual([]);
  });

  test("a write that fails is a warning, not an exception", () => {
    const blocked = join(agentDir, "blocked");
    writeFileSync(blocked, "a file where the agent dir should be");
    expect(readTrustDecision(blocked, cwd)).toBeUndefined();
    const warning = rememberTrustDecision(blocked, cwd, true);
    expect(warning).toStartWith(`Could not remember the trust decision in ${join(blocked, "trust.json")}`);
  });
});

describe("resolveBuiltinTrust", () => {
  test("the command-line flag wins over everything", () => {
    expect(resolveBuiltinTrust({ cliTrust: true, remembered: false, setting: "deny" })).toBe("trusted");
    expect(resolveBuiltinTrust({ cliTrust: false, remembered: true, setting: "trust" })).toBe("denied");
  });

  test("then the remembered decision, then the setting", () => {
    expect(resolveBuiltinTrust({ remembered: true, setting: "deny" })).toBe("trusted");
    expect(resolveBuiltinTrust({ remembered: false, setting: "trust" })).toBe("denied");
    expect(resolveBuiltinTrust({ setting: "trust" })).toBe("trusted");
    expect(resolveBuiltinTrust({ setting: "deny" })).toBe("denied");
    expect(resolveBuiltinTrust({ setting: "ask" })).toBe("ask");
  });

  test("with nothing said, xcsh asks", () => {
    expect(resolveBuiltinTrust({})).toBe("ask");
  });
});

describe("projectNeedsTrust", () => {
  test("a project without .xcsh code or code-running settings needs no trust", () => {
    expect(projectNeedsTrust(cwd, {})).toBe(false);
    expect(projectNeedsTrust(cwd, { defaultModel: "x", compaction: { enabled: false }, skills: ["s"] })).toBe(false);
  });

  test("an extension in .xcsh/extensions needs trust", () => {
    sandbox.write(join(cwd, ".xcsh/extensions/tool.ts"), "export default () => {}");
    expect(projectNeedsTrust(cwd, {})).toBe(true);
  });

  test("a helper folder alone in .xcsh/extensions does not", () => {
    sandbox.write(join(cwd, ".xcsh/extensions/lib/util.ts"), "export const x = 1");
    expect(projectNeedsTrust(cwd, {})).toBe(false);
  });

  test("each code-running settings key needs trust; empty values do not", () => {
    expect([...CODE_RUNNING_PROJECT_KEYS].sort()).toEqual(["extensions", "externalEditor", "npmCommand", "packages", "sandbox", "shellCommandPrefix", "shellEnv", "shellPath"]);
    const samples: Record<string, unknown> = {
      extensions: ["./x.ts"],
      packages: ["npm:foo"],
      shellPath: "/bin/zsh",
      shellCommandPrefix: "set -x",
      npmCommand: ["pnpm"],
      externalEditor: "code --wait",
      sandbox: { mode: "off" },
      shellEnv: { passthrough: ["OPENAI_API_KEY"] },
    };
    for (const key of CODE_RUNNING_PROJECT_KEYS) {
      expect(projectNeedsTrust(cwd, { [key]: samples[key] })).toBe(true);
    }
    expect(projectNeedsTrust(cwd, { extensions: [], shellPath: "" })).toBe(false);
  });
});

describe("untrustedProjectNotice", () => {
  test("one line naming what was skipped and both ways to trust, with the real settings path", () => {
    const notice = untrustedProjectNotice(cwd, { extensions: true, settingsKeys: ["shellPath", "npmCommand"] });
    expect(notice).not.toContain("\n");
    expect(notice).toStartWith("xcsh: ");
    expect(notice).toContain(`${cwd}/.xcsh/extensions`);
    expect(notice).toContain(`shellPath, npmCommand from ${cwd}/.xcsh/settings.json`);
    expect(notice).toContain("not trusted");
    expect(notice).toContain("--trust-project");
    expect(notice).toContain(`"defaultProjectTrust": "trust" in ${join(agentDir, "settings.json")}`);
  });

  test("names only what was skipped", () => {
    const notice = untrustedProjectNotice(cwd, { extensions: false, settingsKeys: ["shellPath"] });
    expect(notice).not.toContain("/.xcsh/extensions");
    expect(notice).toContain("shellPath");
  });

  test("without details it names extensions and the code-running settings", () => {
    const notice = untrustedProjectNotice(cwd);
    expect(notice).toContain(`${cwd}/.xcsh/extensions`);
    expect(notice).toContain("shellPath");
  });
});
