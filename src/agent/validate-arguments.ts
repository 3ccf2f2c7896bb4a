/**
 * Checking a model's tool-call arguments against the tool's schema. Models
 * often send "3" for 3 or "true" for true, so values are coerced first; what
 * still does not fit is reported in words the model can act on.
 */
import { surelyFits } from "../schema/check.ts";
import { coerceToJsonSchema } from "../schema/coerce.ts";
import { typeboxValue } from "../schema/validate.ts";
import type { ToolCall } from "../ai/types.ts";
import type { AgentTool } from "./types.ts";

export type ValidationOutcome = { ok: true; args: unknown } | { ok: false; error: string };

export function validateToolArguments(tool: AgentTool<any>, toolCall: ToolCall): ValidationOutcome {
  let args: unknown = toolCall.arguments ?? {};
  try {
    if (tool.prepareArguments) args = tool.prepareArguments(args);
  } catch (error) {
    return { ok: false, error: `Invalid arguments for tool "${tool.name}": ${(error as Error).message}` };
  }
  const schema = tool.parameters;
  if (surelyFits(schema, args)) return { ok: true, args };
  const Value = typeboxValue();
  if (Value.Check(schema, args)) return { ok: true, args };
  const coerced = Value.Convert(schema, structuredClone(args));
  if (Value.Check(schema, coerced)) return { ok: true, args: coerced };
  // typebox converts only its own schemas; a plain JSON Schema (MCP, hand-written) gets the same here.
  const plainCoerced = coerceToJsonSchema(schema, coerced);
  if (Value.Check(schema, plainCoerced)) return { ok: true, args: plainCoerced };

  const problems = Value.Errors(schema, args)
    .slice(0, 8)
    .map((error) => `  - ${error.instancePath ? error.instancePath.slice(1).replaceAll("/", ".") : "(arguments)"}: ${error.message}`);
  return {
    ok: false,
    error:
      `Invalid arguments for tool "${tool.name}":\n${problems.join("\n")}\n` +
      `Received: ${JSON.stringify(toolCall.arguments)}\nCall the tool again with arguments that match its schema.`,
  };
}
