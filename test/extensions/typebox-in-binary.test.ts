/**
 * typebox as the built binary serves it to extensions: the root at once, every
 * subpath (and the old `@sinclair/typebox` spellings) the first time an extension
 * imports it. host-modules.test.ts checks the same modules run from source; this
 * checks the binary, where the subpaths load lazily from inside the executable.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createExtensionFixture, withExtensions, type ExtensionFixture } from "../support/extensions.ts";

let fixture: ExtensionFixture;
beforeAll(() => {
  fixture = createExtensionFixture();
});
afterAll(() => fixture.cleanup());

const EVERY_SUBPATH = `
import { Type } from "typebox";
import { Value } from "typebox/value";
import { Compile } from "typebox/compile";
import { Format } from "typebox/format";
import { Guard } from "typebox/guard";
import { Check as SchemaCheck } from "typebox/schema";
import { Settings } from "typebox/system";
import { IsValidationError } from "typebox/error";
import { Type as OldType } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { Value as OldValue } from "@sinclair/typebox/value";
import { Errors } from "@sinclair/typebox/errors";

export default function (pi) {
  const params = Type.Object({ n: Type.Integer({ minimum: 1 }) });
  pi.registerCommand("typebox-report", {
    description: "what each typebox module answers",
    handler: async (_args, ctx) => {
      const report = {
        value: Value.Check(params, { n: 2 }) && !Value.Check(params, { n: 0 }),
        compile: Compile(params).Check({ n: 3 }),
        format: Format.Test("email", "a@b.co"),
        guard: Guard.IsString("x"),
        schema: SchemaCheck({ type: "string" }, "s"),
        settings: typeof Settings.Get,
        error: IsValidationError({}),
        oldCompiler: TypeCompiler.Compile(OldType.Number()).Check(3),
        oldValue: OldValue.Check(OldType.String(), 3),
        oldErrors: [...Errors(OldType.String(), 3)].length > 0,
      };
      ctx.ui.notify(JSON.stringify(report));
    },
  });
}
`;

test("an extension importing every typebox module, old spellings included, gets working ones from the binary", async () => {
  const path = fixture.writeExtension("every-typebox.ts", EVERY_SUBPATH);
  const rpc = fixture.start(withExtensions(path));
  expect(await rpc.request({ type: "prompt", message: "/typebox-report" })).toMatchObject({ success: true });
  expect(rpc.ofType("extension_error")).toEqual([]);
  const notice = await rpc.waitFor((frame) => frame.method === "notify");
  expect(JSON.parse(notice.message)).toEqual({
    value: true,
    compile: true,
    format: true,
    guard: true,
    schema: true,
    settings: "function",
    error: false,
    oldCompiler: true,
    oldValue: false,
    oldErrors: true,
  });
  expect(await rpc.close()).toBe(0);
});
