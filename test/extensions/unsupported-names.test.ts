/**
 * The names xcsh serves only as "not supported" stand-ins are documented where
 * extension authors look (docs/extensions.md, "Names xcsh does not implement"),
 * each with the reason, and the list is the one the host modules serve.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AGENT_CORE_UNSUPPORTED, CODING_AGENT_UNSUPPORTED, PI_AI_UNSUPPORTED } from "../../src/extensions/unsupported-names.ts";

const docs = readFileSync(join(import.meta.dir, "../../docs/extensions.md"), "utf8");
const section = docs.slice(docs.indexOf("### Names xcsh does not implement"), docs.indexOf("## Modes"));

describe("docs/extensions.md lists every stand-in with its reason", () => {
  for (const [module, groups] of [
    ["@earendil-works/pi-coding-agent", CODING_AGENT_UNSUPPORTED],
    ["@earendil-works/pi-ai", PI_AI_UNSUPPORTED],
    ["@earendil-works/pi-agent-core", AGENT_CORE_UNSUPPORTED],
  ] as const) {
    test(module, () => {
      const part = section.slice(section.indexOf(`**\`${module}\``));
      for (const group of groups) {
        const line = part.split("\n").find((candidate) => candidate.includes(group.reason));
        expect(line, `reason "${group.id}"`).toBeDefined();
        for (const name of group.names) expect(line, name).toContain(`\`${name}\``);
      }
    });
  }
});
