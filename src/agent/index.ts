export * from "./types.ts";
export { Agent, type AgentOptions, type AgentState, type AgentListener } from "./agent.ts";
export { runAgentLoop, type AgentLoopConfig } from "./agent-loop.ts";
export { MessageQueue } from "./message-queue.ts";
export * from "./messages.ts";
export { validateToolArguments } from "./validate-arguments.ts";
