/**
 * The messages between a script's host (run-script.ts, on the agent's thread)
 * and its QuickJS worker (worker.ts). The worker owns nothing but the script:
 * every tool call is a `call` message the host answers, so hooks, permissions
 * and the sandbox stay on the agent's side.
 */

/** A tool as the worker knows it: enough for `tools`, `ALL_TOOLS`, `searchTools` and `describeTool`. */
export interface CatalogEntry {
  name: string;
  identifier: string;
  /** Description, guidelines and declaration. */
  description: string;
  /** The tool's group (an MCP server, an extension's namespace): its name, other names, and what it offers (searched too). */
  namespace?: string;
  namespaceAliases?: string[];
  namespaceDescription?: string;
  /** The server's `instructions`, for describeNamespace(). */
  namespaceInstructions?: string;
}

export type HostMessage =
  /** Sent first: QuickJS's wasm, compiled once in the host; the worker makes its VM from it before its script comes. */
  | { type: "prepare"; wasm: WebAssembly.Module }
  | {
      type: "start";
      code: string;
      catalog: CatalogEntry[];
      store: Record<string, unknown>;
      deadline?: number;
      timeoutMs?: number;
      /**
       * One Int32 the host sets to 1 to stop the script. Worker.terminate() alone does
       * not stop a thread busy in QuickJS's loop; its interrupt handler reads this.
       */
      stop: SharedArrayBuffer;
    }
  | { type: "reply"; id: number; ok: true; value: unknown }
  | { type: "reply"; id: number; ok: false; error: string };

export type WorkerMessage =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "console"; line: string }
  | { type: "call"; id: number; name: string; args: unknown }
  /** A member of the `models` global (models-global.ts); answered with a `reply` like a call. */
  | { type: "models"; id: number; operation: string; args: unknown }
  | { type: "store"; key: string; value: unknown }
  | { type: "done"; ok: true }
  | { type: "done"; ok: false; error: string };
