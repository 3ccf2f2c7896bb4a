/**
 * In json and rpc modes stdout carries protocol frames only. Anything else that
 * would print there (console.log from a library or an extension) is sent to
 * stderr instead, and frames are written whole, one JSON object per line.
 * A string is taken as an already serialized line.
 */
import { format } from "node:util";
import { serializeFrame } from "./rpc/jsonl.ts";

let claimed = false;

export function claimStdoutForProtocol(): (frame: unknown) => void {
  if (!claimed) {
    claimed = true;
    const toStderr = (...args: unknown[]) => {
      process.stderr.write(format(...args) + "\n");
    };
    console.log = toStderr;
    console.info = toStderr;
    console.debug = toStderr;
  }
  return (frame) => {
    process.stdout.write(typeof frame === "string" ? frame : serializeFrame(frame));
  };
}
