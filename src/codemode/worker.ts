/**
 * The thread a codemode script runs in: a QuickJS VM (quickjs-wasi, its wasm
 * embedded in the executable) with the script's globals and nothing else — no
 * Node API, file system, network or timers. Tool calls become `call` messages
 * the host answers; output is sent as it is made, so a script cut off by its
 * deadline keeps what it printed. The host sends the compiled wasm first
 * (`prepare`), and the VM is made from it while the worker waits for its script
 * (warm-worker.ts). A worker runs one script in that one VM and is then ended by
 * its host, which also ends it on abort: a script busy in a loop can always be
 * stopped, whatever it does.
 */
import { QuickJS, type JSValueHandle } from "quickjs-wasi";
import type { CatalogEntry, HostMessage, WorkerMessage } from "./protocol.ts";
import { MODELS_PRELUDE } from "./models-global.ts";
import { searchCatalog } from "./search.ts";

declare const self: Worker;

/** pi 1.6.0's limits: a VM's memory, and what one script may output. */
const MEMORY_LIMIT = 256 * 1024 * 1024;
const MAX_OUTPUT_CHARS = 16_777_216;
const MAX_OUTPUT_CALLS = 100_000;
const MAX_STORED_VALUE = 262_144;
const MAX_STORED_TOTAL = 1_048_576;

function post(message: WorkerMessage): void {
  self.postMessage(message);
}

/** The script's globals, written in the guest's own language over five host functions. */
const PRELUDE = `(function (emit, call, quit, search, keep, catalog, stored) {
  const show = (value) => {
    if (typeof value === "string") return value;
    if (value instanceof Error) return String(value);
    try { const json = JSON.stringify(value); return json === undefined ? String(value) : json; } catch { return String(value); }
  };
  globalThis.text = (value) => { emit("text", show(value)); };
  globalThis.image = (value) => {
    let data, mimeType;
    if (typeof value === "string" || (value && typeof value.image_url !== "undefined")) {
      const url = typeof value === "string" ? value : (typeof value.image_url === "string" ? value.image_url : value.image_url && value.image_url.url);
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(String(url));
      if (!match) throw new TypeError("image() takes a base64 data: URL, an { image_url } object or an image block; remote URLs are not supported");
      mimeType = match[1]; data = match[2];
    } else if (value && value.type === "image" && typeof value.data === "string") {
      data = value.data; mimeType = value.mimeType;
    } else throw new TypeError("image() takes a base64 data: URL, an { image_url } object or an image block");
    if (!/^image\\/(png|jpeg|gif|webp)$/.test(String(mimeType))) throw new TypeError("image(): only PNG, JPEG, GIF and WebP images are accepted, not " + mimeType);
    emit("image", JSON.stringify({ data, mimeType }));
  };
  const line = (...args) => args.map(show).join(" ");
  globalThis.console = { log: (...a) => emit("console", line(...a)), info: (...a) => emit("console", line(...a)), warn: (...a) => emit("console", line(...a)), error: (...a) => emit("console", line(...a)), debug: (...a) => emit("console", line(...a)) };
  globalThis.exit = () => { quit(); };
  const table = {};
  for (const entry of catalog) {
    const name = entry.name;
    table[entry.identifier] = (args) => call(name, JSON.stringify(args === undefined ? {} : args)).then((json) => JSON.parse(json));
  }
  const names = catalog.map((entry) => entry.identifier).join(", ");
  globalThis.tools = new Proxy(table, {
    get(target, key) {
      if (typeof key !== "string" || key in target || key === "then" || key === "toJSON") return target[key];
      throw new TypeError("tools." + key + " does not exist. Available: " + names + ". ALL_TOOLS lists every tool; searchTools(query) finds tools by topic.");
    },
  });
  globalThis.ALL_TOOLS = catalog.map((entry) => ({ name: entry.name, description: entry.description }));
  globalThis.searchTools = async (query, options) => JSON.parse(search(String(query), options && options.limit !== undefined ? Number(options.limit) : 8, options && options.namespace !== undefined ? String(options.namespace) : ""));
  // A group by its name or an alias, compared as identifiers (search.ts's inNamespace): "files" finds "mcp__files".
  const identifierForm = (value) => String(value).replace(/[^A-Za-z0-9_$]/g, "_");
  globalThis.describeNamespace = async (name) => {
    const wanted = identifierForm(name);
    const members = catalog.filter((entry) => entry.namespace !== undefined && [entry.namespace, ...(entry.namespaceAliases || [])].some((other) => identifierForm(other) === wanted));
    if (members.length === 0) return undefined;
    const { namespace, namespaceDescription: description, namespaceInstructions: instructions } = members[0];
    return { name: namespace, ...(description === undefined ? {} : { description }), ...(instructions === undefined ? {} : { instructions }), tools: members.map((entry) => entry.name) };
  };
  globalThis.describeTool = async (name) => {
    const entry = catalog.find((candidate) => candidate.name === name || candidate.identifier === name);
    return entry ? entry.description : undefined;
  };
  const values = stored;
  globalThis.store = (key, value) => {
    key = String(key);
    const json = value === undefined ? undefined : JSON.stringify(value);
    keep(key, json === undefined ? "" : json);
    if (json === undefined) delete values[key]; else values[key] = JSON.parse(json);
  };
  globalThis.load = (key) => {
    const value = values[String(key)];
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  };
})`;

function errorText(name: string | undefined, message: string | undefined, stack: string | undefined): string {
  const head = `${name || "Error"}: ${message ?? ""}`;
  return stack ? `${head}\n${stack.replace(/\n$/, "")}` : head;
}

/** The VM's interrupt handler asks this; the running script sets it (nothing runs before). */
let interrupted: () => boolean = () => false;
/** The VM, and the prelude compiled in it (not yet run: no global exists before the script's). */
let prepared: Promise<{ vm: QuickJS; install: JSValueHandle }> | undefined;

function prepare(wasm: WebAssembly.Module): Promise<unknown> {
  prepared ??= QuickJS.create({ wasm, memoryLimit: MEMORY_LIMIT, interruptHandler: () => interrupted() }).then((vm) => ({
    vm,
    install: vm.evalCode(PRELUDE, "codemode-prelude.js"),
  }));
  return prepared;
}

async function run(start: Extract<HostMessage, { type: "start" }>): Promise<void> {
  let exiting = false;
  let stopReason: string | undefined;
  let finished = false;
  let outputChars = 0;
  let outputCalls = 0;
  const storedChars = new Map<string, number>(Object.entries(start.store).map(([key, value]) => [key, JSON.stringify(value).length]));
  const pending = new Map<number, ReturnType<QuickJS["newPromise"]>>();
  let nextCall = 0;

  const stopFlag = new Int32Array(start.stop);
  if (!prepared) throw new Error("the worker got its script before QuickJS's wasm");
  const { vm, install } = await prepared;
  interrupted = () => {
    if (exiting || stopReason) return true;
    if (Atomics.load(stopFlag, 0) !== 0) {
      stopReason = "The script was stopped.";
      return true;
    }
    if (start.deadline !== undefined && Date.now() > start.deadline) {
      stopReason = `Script timed out after ${start.timeoutMs} ms`;
      return true;
    }
    return false;
  };

  const finish = (outcome: { ok: true } | { ok: false; error: string }) => {
    if (finished) return;
    finished = true;
    post({ type: "done", ...outcome } as WorkerMessage);
  };

  const emit = vm.newFunction("emit", (kind: JSValueHandle, value: JSValueHandle) => {
    if (exiting || finished) return vm.undefined;
    const text = value.toString();
    outputChars += text.length;
    outputCalls += 1;
    if (outputChars > MAX_OUTPUT_CHARS || outputCalls > MAX_OUTPUT_CALLS) {
      stopReason ??= `Script output passed ${MAX_OUTPUT_CHARS} characters or ${MAX_OUTPUT_CALLS} text(), image() and console calls; write large data to a file with a tool instead`;
      return vm.undefined;
    }
    const which = kind.toString();
    if (which === "image") post({ type: "image", ...(JSON.parse(text) as { data: string; mimeType: string }) });
    else if (which === "console") post({ type: "console", line: text });
    else post({ type: "text", text });
    return vm.undefined;
  });
  const call = vm.newFunction("call", (name: JSValueHandle, args: JSValueHandle) => {
    const deferred = vm.newPromise();
    const id = ++nextCall;
    pending.set(id, deferred);
    post({ type: "call", id, name: name.toString(), args: JSON.parse(args.toString()) });
    return deferred.handle;
  });
  const quit = vm.newFunction("quit", () => {
    exiting = true;
    return vm.undefined;
  });
  const search = vm.newFunction("search", (query: JSValueHandle, limit: JSValueHandle, namespace: JSValueHandle) => {
    const within = namespace.toString();
    const found = searchCatalog(start.catalog, query.toString(), limit.toNumber(), within === "" ? undefined : within);
    return vm.newString(JSON.stringify(found.map((entry: CatalogEntry) => ({ name: entry.name, description: entry.description }))));
  });
  const keep = vm.newFunction("keep", (key: JSValueHandle, json: JSValueHandle) => {
    const name = key.toString();
    const value = json.toString();
    if (value.length > MAX_STORED_VALUE) throw new RangeError(`store(): a value may have at most ${MAX_STORED_VALUE} characters of JSON`);
    const total = [...storedChars.entries()].reduce((sum, [other, size]) => sum + (other === name ? 0 : size), 0) + value.length;
    if (total > MAX_STORED_TOTAL) throw new RangeError(`store(): all values together may have at most ${MAX_STORED_TOTAL} characters of JSON`);
    if (value === "") storedChars.delete(name);
    else storedChars.set(name, value.length);
    post({ type: "store", key: name, value: value === "" ? undefined : JSON.parse(value) });
    return vm.undefined;
  });

  vm.callFunction(install, vm.undefined, emit, call, quit, search, keep, vm.hostToHandle(start.catalog), vm.hostToHandle(start.store));
  // The `models` global: its members are answered by the host like tool calls (models-global.ts).
  const ask = vm.newFunction("ask", (operation: JSValueHandle, args: JSValueHandle) => {
    const deferred = vm.newPromise();
    const id = ++nextCall;
    pending.set(id, deferred);
    post({ type: "models", id, operation: operation.toString(), args: JSON.parse(args.toString()) });
    return deferred.handle;
  });
  vm.callFunction(vm.evalCode(MODELS_PRELUDE, "codemode-models.js"), vm.undefined, ask);

  let script: JSValueHandle;
  try {
    // The script's first line stays line 1, so error positions match what the model wrote.
    script = vm.evalCode(`(async () => {${start.code}\n})()`, "codemode.js");
  } catch (error) {
    const failure = error as { name?: string; message?: string; stack?: string };
    return finish({ ok: false, error: stopReason ?? errorText(failure.name, failure.message, failure.stack) });
  }

  const settle = () => {
    if (finished) return;
    if (exiting) return finish({ ok: true });
    if (stopReason) return finish({ ok: false, error: stopReason });
    if (script.promiseState === 0) {
      // Nothing can settle it: no call is running, and there are no timers.
      if (pending.size === 0) finish({ ok: false, error: "The script waits on a promise that can never settle (no tool call is running, and there are no timers)." });
      return;
    }
    const outcome = vm.resolvePromise(script);
    vm.executePendingJobs();
    void outcome.then((result) => {
      if ("error" in result) {
        const value = vm.dump(result.error) as any;
        const error = value instanceof Error || (value && typeof value === "object" && "message" in value) ? errorText(value.name, value.message, value.stack) : `Uncaught ${typeof value === "string" ? value : JSON.stringify(value)}`;
        return finish({ ok: false, error: stopReason ?? error });
      }
      const value = vm.dump(result.value);
      if (value !== undefined && !exiting) {
        post({ type: "text", text: typeof value === "string" ? value : (JSON.stringify(value) ?? String(value)) });
      }
      finish({ ok: true });
    });
  };

  const pump = () => {
    try {
      vm.executePendingJobs();
    } catch {
      // An interrupt (exit(), the deadline, the output limit) surfaces here; settle() says which.
    }
    settle();
  };

  self.onmessage = (event: MessageEvent<HostMessage>) => {
    const message = event.data;
    if (message.type !== "reply" || finished) return;
    const deferred = pending.get(message.id);
    if (!deferred) return;
    pending.delete(message.id);
    if (message.ok) deferred.resolve(vm.newString(JSON.stringify(message.value ?? null)));
    else deferred.reject(vm.newError(message.error));
    pump();
  };
  pump();
}

self.onmessage = (event: MessageEvent<HostMessage>) => {
  if (event.data.type === "prepare") {
    // A failure here surfaces when the script starts and awaits it.
    prepare(event.data.wasm).catch(() => undefined);
    return;
  }
  if (event.data.type !== "start") return;
  run(event.data).catch((error: unknown) => {
    post({ type: "done", ok: false, error: `The script could not run: ${error instanceof Error ? error.message : String(error)}` });
  });
};
