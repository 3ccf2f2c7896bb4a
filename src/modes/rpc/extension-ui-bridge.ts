/**
 * `ctx.ui` in RPC mode (seed 000 "extension UI", seed 001): dialogs become
 * `extension_ui_request` frames on stdout and wait for the host's matching
 * `extension_ui_response`; notices (notify, setStatus, setWidget, setTitle,
 * set_editor_text) are written and never answered. What needs a terminal
 * degrades to a default. A dialog always settles: on an answer, a cancel, its
 * timeout, its abort signal, or close() at stdin EOF — never by throwing.
 */
import type { ExtensionUIContext, ExtensionUIDialogOptions, NotifyType, WidgetPlacement } from "../../extensions/ui-types.ts";
import { plainTheme } from "../../extensions/ui-headless.ts";
import type { RpcExtensionUiDialogRequest, RpcExtensionUiRequest } from "./rpc-client-types.ts";

/** A request as this side writes it: type and id are added when it is sent. */
type Outgoing<R> = R extends unknown ? Omit<R, "type" | "id"> : never;
type OutgoingRequest = Outgoing<RpcExtensionUiRequest>;
type OutgoingDialog = Outgoing<RpcExtensionUiDialogRequest>;

type Answer = Record<string, unknown>;

interface PendingDialog {
  /** Settles the dialog with the host's answer, or with its default when none is given. */
  settle(answer?: Answer): void;
}

/** setTimeout fires at once beyond this; a longer timeout is treated as none. */
const MAX_TIMER_MS = 2 ** 31 - 1;

const NOTIFY_TYPES = new Set<unknown>(["info", "warning", "error"]);
const PLACEMENTS = new Set<unknown>(["aboveEditor", "belowEditor"]);
const NO_THEMES = "Themes are not supported in RPC mode: the host renders the UI";

/** Any argument as text: extensions are not type-checked, and a frame must always serialize. */
function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  try {
    return String(value);
  } catch {
    return "";
  }
}

function optionalText(value: unknown): string | undefined {
  return value === undefined || value === null ? undefined : text(value);
}

function isSignal(value: unknown): value is AbortSignal {
  return value instanceof AbortSignal;
}

function validTimeout(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A cancel wins over any value sent with it; an answer of the wrong kind counts as a cancel. */
function cancelled(answer: Answer): boolean {
  return answer.cancelled === true;
}

function stringValue(answer: Answer): string | undefined {
  return !cancelled(answer) && typeof answer.value === "string" ? answer.value : undefined;
}

export class RpcExtensionUI implements ExtensionUIContext {
  readonly theme = plainTheme;
  private readonly pending = new Map<string, PendingDialog>();
  private readonly emitTitle: boolean;
  private closedBecause: string | undefined;
  private closed = false;

  /**
   * @param write writes one frame to stdout.
   * @param options.emitTitle send setTitle requests; off by default because most hosts have no
   *   terminal title (seed 001; rpc mode passes `PI_RPC_EMIT_TITLE === "1"`).
   */
  constructor(
    private readonly write: (frame: object) => void,
    options: { emitTitle?: boolean } = {},
  ) {
    this.emitTitle = options?.emitTitle === true;
  }

  /** Dialogs still waiting for the host. */
  get pendingCount(): number {
    return this.pending.size;
  }

  /** Why close() was called, once it has been. */
  get closedReason(): string | undefined {
    return this.closedBecause;
  }

  /* ---------- dialogs ---------- */

  /** Only one of the offered options is accepted as an answer. */
  select(title: string, options: string[], opts?: ExtensionUIDialogOptions): Promise<string | undefined> {
    const offered = Array.isArray(options) ? options.map(text) : [];
    return this.ask({ method: "select", title: text(title), options: offered }, opts, undefined, (answer) => {
      const value = stringValue(answer);
      return value !== undefined && offered.includes(value) ? value : undefined;
    });
  }

  /** `confirmed` answers; a boolean `value` is accepted too (seed 004 lists it for every dialog). */
  confirm(title: string, message: string, opts?: ExtensionUIDialogOptions): Promise<boolean> {
    return this.ask({ method: "confirm", title: text(title), message: text(message) }, opts, false, (answer) => {
      if (cancelled(answer)) return undefined;
      if (typeof answer.confirmed === "boolean") return answer.confirmed;
      return typeof answer.value === "boolean" ? answer.value : undefined;
    });
  }

  input(title: string, placeholder?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined> {
    return this.ask({ method: "input", title: text(title), placeholder: optionalText(placeholder) }, opts, undefined, stringValue);
  }

  editor(title: string, prefill?: string, opts?: ExtensionUIDialogOptions): Promise<string | undefined> {
    return this.ask({ method: "editor", title: text(title), prefill: optionalText(prefill) }, opts, undefined, stringValue);
  }

  /**
   * An extension_ui_response from stdin, as parsed JSON of any shape. It settles the dialog
   * named by `id` (or seed 004's `requestId`); returns false, and changes nothing, when no
   * dialog is waiting under that id — unknown and late responses are ignored (seed 001).
   */
  handleResponse(frame: unknown): boolean {
    if (typeof frame !== "object" || frame === null || Array.isArray(frame)) return false;
    const answer = frame as Answer;
    const id = [answer.id, answer.requestId].find((key): key is string => typeof key === "string" && this.pending.has(key));
    if (id === undefined) return false;
    this.pending.get(id)?.settle(answer);
    return true;
  }

  /**
   * The host can no longer answer (stdin closed): every waiting dialog resolves to its
   * default, and later dialogs do so at once without a request. Notices are still written —
   * the host may be reading stdout until the process exits.
   */
  close(reason?: string): void {
    if (!this.closed) this.closedBecause = reason;
    this.closed = true;
    for (const dialog of [...this.pending.values()]) dialog.settle();
  }

  /**
   * Writes a dialog request and waits for its answer. `read` turns the host's answer into
   * the result, or undefined to fall back to the default.
   */
  private ask<T>(request: OutgoingDialog, opts: ExtensionUIDialogOptions | undefined, fallback: T, read: (answer: Answer) => T | undefined): Promise<T> {
    const signal = isSignal(opts?.signal) ? opts.signal : undefined;
    // An already-aborted dialog is never shown: nothing to write, nothing to dismiss later.
    if (this.closed || signal?.aborted) return Promise.resolve(fallback);
    const timeout = validTimeout(opts?.timeout);
    const id = crypto.randomUUID();

    return new Promise<T>((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const onAbort = () => settle();
      // Each way out removes the entry first, so whichever comes second finds nothing to do.
      const settle = (answer?: Answer) => {
        if (!this.pending.delete(id)) return;
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        resolve(answer ? (read(answer) ?? fallback) : fallback);
      };
      this.pending.set(id, { settle });
      // The host needs no dismissal on timeout or abort: the spec has no frame for it, and
      // its answer to a dialog that is gone is ignored.
      signal?.addEventListener("abort", onAbort, { once: true });
      if (timeout !== undefined && timeout <= MAX_TIMER_MS) timer = setTimeout(settle, timeout);
      // Unanswerable if it never reached the host, so it settles now.
      if (!this.send({ ...request, id, timeout })) settle();
    });
  }

  /* ---------- fire-and-forget ---------- */

  notify(message: string, type?: NotifyType): void {
    this.send({ method: "notify", message: text(message), notifyType: NOTIFY_TYPES.has(type) ? type : "info" });
  }

  /** Undefined text clears the entry; the request then carries no statusText. */
  setStatus(key: string, statusText: string | undefined): void {
    this.send({ method: "setStatus", statusKey: text(key), statusText: optionalText(statusText) });
  }

  /**
   * Lines are shown, undefined clears; a component factory needs a terminal, so nothing is
   * sent for it (nor for anything else that is not lines).
   */
  setWidget(key: string, content: string[] | ((...args: any[]) => unknown) | undefined, options?: { placement?: WidgetPlacement }): void {
    if (content !== undefined && content !== null && !Array.isArray(content)) return;
    const placement = options?.placement;
    this.send({
      method: "setWidget",
      widgetKey: text(key),
      widgetLines: Array.isArray(content) ? content.map(text) : undefined,
      widgetPlacement: PLACEMENTS.has(placement) ? placement : undefined,
    });
  }

  setTitle(title: string): void {
    if (this.emitTitle) this.send({ method: "setTitle", title: text(title) });
  }

  setEditorText(editorText: string): void {
    this.send({ method: "set_editor_text", text: text(editorText) });
  }

  /** No paste handling outside a terminal: the text simply replaces the editor's. */
  pasteToEditor(pasted: string): void {
    this.setEditorText(pasted);
  }

  /** One request with a fresh id; false when it could not be written. */
  private send(request: OutgoingRequest & { id?: string }): boolean {
    try {
      this.write({ type: "extension_ui_request", id: crypto.randomUUID(), ...request });
      return true;
    } catch {
      // stdout is gone or the frame would not serialize; the extension must not fail for it.
      return false;
    }
  }

  /* ---------- what needs a terminal (seed 000: degraded in RPC mode) ---------- */

  getEditorText(): string {
    return "";
  }
  setWorkingMessage(_message?: string): void {}
  setWorkingVisible(_visible: boolean): void {}
  setHiddenThinkingLabel(_label?: string): void {}
  setWorkingIndicator(_indicator?: { frames: string[]; intervalMs?: number }): void {}
  setFooter(_factory: ((...args: any[]) => unknown) | undefined): void {}
  setHeader(_factory: ((...args: any[]) => unknown) | undefined): void {}
  setEditorComponent(_factory: ((...args: any[]) => unknown) | undefined): void {}
  getEditorComponent(): undefined {
    return undefined;
  }
  async custom<T>(_factory: (...args: any[]) => unknown, _options?: Record<string, unknown>): Promise<T | undefined> {
    return undefined;
  }
  setToolsExpanded(_expanded: boolean): void {}
  getToolsExpanded(): boolean {
    return false;
  }
  getAllThemes(): { name: string; path: string | undefined }[] {
    return [];
  }
  getTheme(_name: string): undefined {
    return undefined;
  }
  setTheme(_theme: unknown): { success: boolean; error?: string } {
    return { success: false, error: NO_THEMES };
  }
  addAutocompleteProvider(_factory: (current: unknown) => unknown): void {}
  /** There is no terminal to read from: the handler is never called. */
  onTerminalInput(_handler: (data: string) => unknown): () => void {
    return () => {};
  }
}
