import type { TSchema } from "typebox";
import type { AgentTool } from "../agent/types.ts";

/** A built-in coding tool: an agent tool plus what the system prompt says about it. */
export interface CodingTool<TParameters extends TSchema = TSchema, TDetails = any> extends AgentTool<TParameters, TDetails> {
  /** One line for the system prompt's tool list. */
  promptSnippet?: string;
  /** Rules for using the tool well, added to the system prompt's guidelines. */
  promptGuidelines?: string[];
}
