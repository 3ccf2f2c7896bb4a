/**
 * How a tool looks from inside a script: its identifier on `tools`, and a
 * TypeScript declaration written from its JSON schema, with what the call
 * resolves to. The codemode description, `describeTool()` and `ALL_TOOLS` show
 * these, with the tool's prompt guidelines (the system prompt's rules cover
 * only the tools declared to the model).
 */
import type { TSchema } from "typebox";

export interface CallableTool {
  name: string;
  description: string;
  parameters: TSchema;
  promptGuidelines?: string[];
  /** Left out of the codemode description (an indirect MCP tool): found with searchTools() and ALL_TOOLS. */
  unlisted?: boolean;
  /**
   * The group the tool belongs to (pi 1.x's ToolNamespace): an MCP server (`mcp__<server>`, alias
   * `<server>`) or an extension's `namespace`. The codemode description lists a group under one
   * heading; scripts find it with describeNamespace() and searchTools({ namespace }).
   */
  namespace?: ToolGroup;
  /** An MCP tool: scripts get its CallToolResult rather than its text. */
  mcp?: boolean;
}

export interface ToolGroup {
  name: string;
  aliases?: readonly string[];
  description?: string;
  /** Longer guidance, never listed: scripts read it with describeNamespace(). */
  instructions?: string;
}

/** The property of `tools` a tool is reached by: characters not allowed in an identifier become `_`. */
export function toolIdentifier(name: string): string {
  const identifier = name.replace(/[^A-Za-z0-9_$]/g, "_");
  return /^[0-9]/.test(identifier) ? `_${identifier}` : identifier;
}

const BASH_RESULT = [
  "{",
  "  /** stdout and stderr together */",
  "  output: string;",
  "  /** true when output was cut; the whole of it is in full_output_path */",
  "  truncated: boolean;",
  "  full_output_path?: string;",
  "  exit_code: number;",
  "  wall_time_seconds: number;",
  "}",
].join("\n");

/** What `tools.<name>()` resolves to, as a type. */
const CALL_TOOL_RESULT = "{ content: ({ type: \"text\"; text: string } | { type: \"image\"; data: string; mimeType: string })[]; structuredContent?: unknown; isError?: boolean }";

function resultType(name: string, mcp: boolean): string {
  if (mcp) return CALL_TOOL_RESULT;
  if (name === "bash") return BASH_RESULT;
  if (name === "read") return 'string | { type: "image"; data: string; mimeType: string; note: string }';
  return "string";
}

/** A JSON schema as a TypeScript type, indented for its depth. */
export function schemaType(schema: any, indent = ""): string {
  if (!schema || typeof schema !== "object") return "unknown";
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value: unknown) => JSON.stringify(value)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map((member: unknown) => schemaType(member, indent)).join(" | ");
  switch (schema.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${wrap(schemaType(schema.items, indent))}[]`;
    case "object": {
      const properties = Object.entries<any>(schema.properties ?? {});
      if (properties.length === 0) return "Record<string, unknown>";
      const required = new Set<string>(schema.required ?? []);
      const inner = `${indent}  `;
      const lines = properties.flatMap(([key, property]) => [
        ...(property?.description ? [`${inner}/** ${String(property.description).replace(/\*\//g, "* /")} */`] : []),
        `${inner}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}${required.has(key) ? "" : "?"}: ${schemaType(property, inner)};`,
      ]);
      return `{\n${lines.join("\n")}\n${indent}}`;
    }
    default:
      return "unknown";
  }
}

function wrap(type: string): string {
  return type.includes("|") ? `(${type})` : type;
}

/** The declaration of one tool on `tools`. */
export function declaration(tool: CallableTool): string {
  return `tools.${toolIdentifier(tool.name)}(args: ${schemaType(tool.parameters)}): Promise<${resultType(tool.name, tool.mcp === true)}>`;
}

/** A tool's description, guidelines and declaration, as scripts and the codemode description show it. */
export function describeCallable(tool: CallableTool): string {
  const guidelines = tool.promptGuidelines?.length ? `\n\n${tool.promptGuidelines.map((line) => `- ${line}`).join("\n")}` : "";
  return `${tool.description}${guidelines}\n\n\`\`\`ts\n${declaration(tool)}\n\`\`\``;
}

/**
 * With codemode `on`, what a declared tool's description adds for the model: how the
 * tool answers inside scripts, where that differs from plain text. Undefined otherwise.
 */
export function scriptResultNote(name: string): string | undefined {
  if (name === "bash") return "In codemode scripts, `tools.bash(args)` resolves to `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`, also when the command exits non-zero.";
  if (name === "read") return 'In codemode scripts, `tools.read(args)` resolves to the file\'s text, or for an image to `{ type: "image", data, mimeType, note }`.';
  return undefined;
}
