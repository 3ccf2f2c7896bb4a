/**
 * pi 1.6.0's render context in the terminal: renderCall / renderResult get
 * `lastComponent` (what that slot returned last, to update in place), `outputPad`,
 * `showImages` and `executionStarted` beside the fields earlier tests cover. Drawn in
 * a real terminal (tmux) by the built binary; what the renderer prints is the proof.
 */
import { describe, expect, test } from "bun:test";
import { send, withExtension, withPane } from "../modes/interactive/fixture.ts";

const EXTENSION = `import { Text } from "@earendil-works/pi-tui";
import { Type } from "typebox";
export default function (pi) {
  pi.registerTool({
    name: "weather",
    label: "Weather",
    description: "The weather in a city",
    parameters: Type.Object({ city: Type.String() }),
    execute: async () => {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return { content: [{ type: "text", text: "drizzle" }], details: {} };
    },
    renderCall: (args, theme, context) => {
      const reused = context.lastComponent !== undefined;
      const text = context.lastComponent ?? new Text("", 1, 0);
      context.state.calls = (context.state.calls ?? 0) + 1;
      text.setText("CALL " + args.city + " started=" + context.executionStarted + " reused=" + reused + " pad=" + context.outputPad + " images=" + context.showImages + " complete=" + context.argsComplete);
      return text;
    },
    renderResult: (result, options, theme, context) =>
      new Text("RESULT " + result.content[0].text + " pad=" + context.outputPad + " error=" + context.isError + " shared=" + (context.state.calls > 0), 1, 0),
  });
}
`;

describe("render contexts in the terminal", () => {
  test("renderCall gets its last component back to update in place, and the row's padding, image and execution facts", async () => {
    await withPane(
      async ({ fake, pane }) => {
        fake.server.enqueue({ content: [{ type: "toolCall", name: "weather", arguments: { city: "Oslo" } }] }, { content: [{ type: "text", text: "Done checking." }] });
        send(pane, "weather please");
        const screen = await pane.waitFor("Done checking.", 30_000);
        expect(screen).toContain("CALL Oslo started=true reused=true pad=1 images=false complete=true");
        expect(screen).toContain("RESULT drizzle pad=1 error=false shared=true");
      },
      withExtension(EXTENSION),
    );
  }, 60_000);

  test("a message renderer's options carry the transcript's padding beside expanded and the key names", async () => {
    await withPane(
      async ({ pane }) => {
        send(pane, "/note");
        const screen = await pane.waitFor("NOTE remember", 30_000);
        expect(screen).toContain("NOTE remember pad=1 expanded=false hint=function");
      },
      withExtension(`import { Text } from "@earendil-works/pi-tui";
export default function (pi) {
  pi.registerMessageRenderer("memo", (message, options) => new Text("NOTE " + message.content + " pad=" + options.outputPad + " expanded=" + options.expanded + " hint=" + typeof options.keyHint, 1, 0));
  pi.registerCommand("note", { description: "Leave a note", handler: async () => pi.sendMessage({ customType: "memo", content: "remember", display: true }) });
}
`),
    );
  }, 60_000);
});
