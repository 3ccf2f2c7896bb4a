import { join } from "node:path";

/** Starts stream-server.ts and reads the base URL it prints; closing its stdin stops it. */
export async function startStreamServer(): Promise<{ baseUrl: string; close(): Promise<void> }> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "stream-server.ts")], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the stream server exited before printing its address");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return {
    baseUrl: text.trim(),
    async close() {
      proc.stdin.end();
      await proc.exited;
    },
  };
}
