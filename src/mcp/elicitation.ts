/**
 * A server's `elicitation/create` (form mode) asked of the person through the mode's
 * dialogs (ctx.ui's confirm, select and input: terminal dialogs, RPC
 * `extension_ui_request` frames, print-mode defaults): first whether to answer at all,
 * then one dialog per field — confirm for a yes/no, select for a choice, input for text
 * and numbers. A field left empty takes its default, or stays out when it is optional.
 * Declining the first question declines; cancelling any later dialog cancels. Where
 * nobody can be asked (print mode) the first question resolves to "no": declined.
 * URL-mode requests (a page to open) are declined: xcsh opens nothing for a server.
 */
import type { ElicitRequest, ElicitResult } from "@modelcontextprotocol/sdk/types.js";

/** The dialogs a mode offers (a subset of the extensions' ExtensionUIContext). */
export interface McpDialogs {
  select(title: string, options: string[]): Promise<string | undefined>;
  confirm(title: string, message: string): Promise<boolean>;
  input(title: string, placeholder?: string): Promise<string | undefined>;
}

interface FieldSchema {
  type?: string;
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  enumNames?: string[];
  oneOf?: { const: unknown; title?: string }[];
  anyOf?: { const: unknown; title?: string }[];
  items?: FieldSchema;
}

const LEAVE_OUT = "(leave out)";

/** A choice's options as shown, each with the value it stands for. */
function choices(field: FieldSchema): { label: string; value: unknown }[] | undefined {
  const titled = field.oneOf ?? field.anyOf;
  if (titled?.every((option) => "const" in option)) return titled.map((option) => ({ label: option.title ?? String(option.const), value: option.const }));
  if (field.enum) return field.enum.map((value, index) => ({ label: field.enumNames?.[index] ?? String(value), value }));
  return undefined;
}

/** undefined: cancelled; `{}`: left out; `{ value }`: the answer. */
async function askField(dialogs: McpDialogs, key: string, field: FieldSchema, required: boolean): Promise<{ value?: unknown } | undefined> {
  const title = `${field.title ?? key}${field.description ? ` — ${field.description}` : ""}`;
  if (field.type === "boolean") return { value: await dialogs.confirm(field.title ?? key, field.description ?? "") };
  const options = choices(field) ?? (field.type === "array" && field.items ? choices(field.items) : undefined);
  if (options) {
    const labels = options.map((option) => option.label);
    const picked = await dialogs.select(title, required ? labels : [...labels, LEAVE_OUT]);
    if (picked === undefined) return undefined;
    if (picked === LEAVE_OUT) return {};
    const value = options.find((option) => option.label === picked)?.value;
    return { value: field.type === "array" ? [value] : value };
  }
  const placeholder = field.default !== undefined ? `default: ${String(field.default)}` : required ? "required" : "optional: leave empty to skip";
  const typed = await dialogs.input(title, placeholder);
  if (typed === undefined) return undefined;
  if (typed.trim() === "") return field.default !== undefined ? { value: field.default } : {};
  if (field.type === "number" || field.type === "integer") {
    const number = Number(typed.trim());
    return Number.isFinite(number) ? { value: number } : undefined;
  }
  return { value: typed };
}

export async function elicitThroughDialogs(dialogs: McpDialogs, server: string, params: ElicitRequest["params"]): Promise<ElicitResult> {
  if ("mode" in params && params.mode === "url") return { action: "decline" };
  const answer = await dialogs.confirm(`MCP server "${server}" asks`, params.message);
  if (!answer) return { action: "decline" };
  const schema = (params as { requestedSchema?: { properties?: Record<string, FieldSchema>; required?: string[] } }).requestedSchema ?? {};
  const required = new Set(schema.required ?? []);
  const content: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(schema.properties ?? {})) {
    const given = await askField(dialogs, key, field, required.has(key));
    if (given === undefined) return { action: "cancel" };
    if ("value" in given) content[key] = given.value;
  }
  return { action: "accept", content: content as ElicitResult["content"] };
}
