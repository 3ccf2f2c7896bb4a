/**
 * The command line's say on a session, shared by every mode: which tools,
 * which model, which session file, and the system prompt overrides.
 */
import type { CliArgs } from "../cli/args.ts";
import { createAgentSession, type CreatedSession } from "../core/create-session.ts";
import { UserError } from "../core/user-error.ts";
import { defaultToolNames, parseToolNames, type ToolName } from "../tools/index.ts";

/** --no-tools, --tools a,b, or the default set; an unknown name is a usage error. */
export function selectedTools(args: CliArgs): readonly ToolName[] {
  if (args.noTools) return [];
  if (args.tools === undefined) return defaultToolNames;
  const parsed = parseToolNames(args.tools);
  if ("error" in parsed) throw new UserError(parsed.error, 2);
  return parsed.names;
}

export async function createSessionFromArgs(args: CliArgs, options: { requireApiKey?: boolean } = {}): Promise<CreatedSession> {
  const created = await createAgentSession({
    cwd: process.cwd(),
    provider: args.provider,
    model: args.model,
    thinking: args.thinking,
    apiKey: args.apiKey,
    requireApiKey: options.requireApiKey,
    toolNames: selectedTools(args),
    systemPrompt: args.systemPrompt,
    appendSystemPrompt: args.appendSystemPrompt,
    sessions: {
      noSession: args.noSession,
      session: args.session,
      continueRecent: args.continueSession,
      sessionDir: args.sessionDir,
      name: args.name,
    },
  });
  for (const warning of created.setup.warnings) process.stderr.write(`xcsh: ${warning}\n`);
  return created;
}
