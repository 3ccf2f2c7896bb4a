/**
 * The start-up profile every build lays its bytecode out by (scripts/bytecode-order.ts).
 * A profile run that fails only costs the layout, so the build would go on quietly
 * with a larger start-up: this holds that each run still works with the binary as it
 * is — the RPC cold start and the print-mode answer each write their profile, in that
 * order, and the flag names both.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { bunBuildHas } from "../../scripts/build-flags.ts";
import { bytecodeOrderFlags, recordBytecodeOrder } from "../../scripts/bytecode-order.ts";
import { ensureBinary } from "../support/cli.ts";

const scratch = mkdtempSync(join(tmpdir(), "xcsh-order-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

// A Bun without the layout builds without a profile and records none.
test.skipIf(!bunBuildHas("--bytecode-order"))("each start-up profile run of the built binary succeeds and writes its profile, most common first", async () => {
  const profiles = await recordBytecodeOrder(ensureBinary(), scratch);
  expect(profiles.map((path) => basename(path))).toEqual(["rpc-cold-start.order", "print-answer.order"]);
  for (const path of profiles) expect(statSync(path).size).toBeGreaterThan(1000);
  expect(bytecodeOrderFlags(profiles)).toEqual([`--bytecode-order=${profiles.join(",")}`]);
  expect(bytecodeOrderFlags([])).toEqual([]);
}, 60_000);
