/**
 * A stand-in for `xcsh --mode rpc` that speaks just enough of the protocol to
 * test RpcClient's side of sub-protocols xcsh does not exercise yet:
 * - at start it prints the frames in $FAKE_RPC_FRAMES (a JSON array);
 * - every frame it reads is echoed back as {"type":"echo","received":frame};
 * - a command with an id is answered with success and the command as data;
 * - {"type":"crash","stderr":…,"code":…} writes to stderr and exits at once, answering nothing.
 */
import { readJsonlLines, serializeFrame } from "../../../../src/modes/rpc/jsonl.ts";

const write = (frame: unknown) => process.stdout.write(serializeFrame(frame));

for (const frame of JSON.parse(process.env.FAKE_RPC_FRAMES ?? "[]") as unknown[]) write(frame);

for await (const line of readJsonlLines(Bun.stdin.stream())) {
  const frame = JSON.parse(line) as { type: string; id?: string; stderr?: string; code?: number };
  if (frame.type === "crash") {
    await Bun.write(Bun.stderr, frame.stderr ?? "");
    process.exit(frame.code ?? 1);
  }
  write({ type: "echo", received: frame });
  if (frame.type !== "extension_ui_response" && frame.id !== undefined) {
    write({ id: frame.id, type: "response", command: frame.type, success: true, data: frame });
  }
}
