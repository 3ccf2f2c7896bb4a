/**
 * What the MCP layer needs to answer a server's `sampling/createMessage`: a sampler,
 * which core supplies (src/core/mcp-sampling.ts: the session's model, after the person
 * agreed). The types are the SDK's request and result, so the connection only routes.
 */
import type { CreateMessageRequest, CreateMessageResult } from "@modelcontextprotocol/sdk/types.js";
import type { Usage } from "../ai/types.ts";

export type SamplingRequest = CreateMessageRequest["params"];
export type SamplingResult = CreateMessageResult;

export interface McpSampler {
  /**
   * The model's answer, and what asking cost (added to the usage of the server's tool call
   * that was running then); throws (the server gets an error) when refused or the model failed.
   */
  sample(server: string, request: SamplingRequest, signal?: AbortSignal): Promise<{ result: SamplingResult; usage?: Usage }>;
}

/** Where a tool call collects the usage of the sampling its server asked for while it ran. */
export interface UsageSink {
  usage?: Usage;
}
