/**
 * `xcsh --mode acp`: the Agent Client Protocol (JSON-RPC 2.0, one message per
 * line) on stdin/stdout, through the official SDK, so an editor (Zed, JetBrains,
 * Neovim) runs xcsh as its agent. stdout carries protocol messages only: console
 * output and `process.stdout` go to stderr. A malformed message is answered with
 * a JSON-RPC error and the connection goes on. Stdin EOF stops the sessions'
 * runs, answers every request still open, shuts the extensions down and ends the
 * process with code 0.
 */
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { RunOptions } from "../../core/run-options.ts";
import { EXIT_STDOUT_CLOSED, guardProcessStdout, routeConsoleToStderr } from "../protocol-output.ts";
import { AcpSessions, createAcpAgent } from "./acp-agent.ts";
import { createEofDrain } from "./eof-drain.ts";

/** fd 1 as the byte stream the SDK writes its messages to; a reader that went away ends the connection. */
function stdoutStream(onClosed: (error: unknown) => void): WritableStream<Uint8Array> {
  const sink = Bun.stdout.writer();
  return new WritableStream<Uint8Array>({
    async write(chunk) {
      try {
        sink.write(chunk);
        await sink.flush();
      } catch (error) {
        onClosed(error);
        throw error;
      }
    },
  });
}

export async function runAcpMode(args: RunOptions, hostApi: () => Promise<Record<string, unknown>>): Promise<number> {
  routeConsoleToStderr();
  guardProcessStdout();
  const sessions = new AcpSessions();
  let stdoutGone = false;
  const output = stdoutStream((error) => {
    // A client that closed both pipes cannot read the last answers: it has simply gone.
    if (stdoutGone || stdinEnded) return;
    stdoutGone = true;
    const code = (error as { code?: string } | undefined)?.code ?? "write error";
    process.stderr.write(`xcsh: stdout was closed (${code}); stopping\n`);
  });
  const app = createAcpAgent({ args, hostApi }, sessions);
  // At stdin's end, runs are cancelled (their prompts answer `cancelled`) and every open request is answered first.
  let stdinEnded = false;
  const drain = createEofDrain(Bun.stdin.stream(), () => {
    stdinEnded = true;
    return sessions.stopAll();
  });
  const connection = app.connect(ndJsonStream(drain.watchOutput(output), drain.input));

  const stop = () => {
    void sessions.closeAll().finally(() => process.exit(130));
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);

  await connection.closed.catch(() => {});
  // The client is gone: runs in progress stop (their bash trees with them), extensions shut down.
  await sessions.closeAll();
  return stdoutGone ? EXIT_STDOUT_CLOSED : 0;
}
