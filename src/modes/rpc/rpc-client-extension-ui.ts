/**
 * The host side of the extension UI sub-protocol (seed 000): which requests
 * are dialogs awaiting an answer, and the extension_ui_response each answer
 * becomes.
 */
import type { ExtensionUiAnswer, RpcExtensionUiDialogRequest, RpcExtensionUiRequest } from "./rpc-client-types.ts";
import type { ExtensionUiResponseFrame } from "./rpc-types.ts";

const DIALOG_METHODS = new Set<string>(["select", "confirm", "input", "editor"]);

export function isDialog(request: RpcExtensionUiRequest): request is RpcExtensionUiDialogRequest {
  return DIALOG_METHODS.has(request.method);
}

export function isExtensionUiRequest(frame: Record<string, unknown>): frame is Record<string, unknown> & RpcExtensionUiRequest {
  return frame.type === "extension_ui_request" && typeof frame.id === "string" && typeof frame.method === "string";
}

/**
 * confirm answers with `confirmed`, the others with the text as `value`; an
 * answer of the wrong kind (or none) cancels, which the extension sees as
 * undefined (false for confirm).
 */
export function dialogResponse(request: RpcExtensionUiDialogRequest, answer: ExtensionUiAnswer | void): ExtensionUiResponseFrame {
  const frame = { type: "extension_ui_response" as const, id: request.id };
  if (request.method === "confirm") return typeof answer === "boolean" ? { ...frame, confirmed: answer } : { ...frame, cancelled: true };
  return typeof answer === "string" ? { ...frame, value: answer } : { ...frame, cancelled: true };
}
