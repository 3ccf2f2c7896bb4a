/**
 * Opens the session a command asked for (new, continued, a given file, or
 * none) and builds the AgentSession around it: model and thinking level from
 * the command line, else from the resumed session, else from settings.
 */
import { inertText } from "../tools/inert-text.ts";
import { resolve } from "node:path";
import { createSessionResources, type ResourceFlags } from "../resources/resource-loader.ts";
import { SessionFileError } from "../session/session-file.ts";
import { SessionManager } from "../session/session-manager.ts";
import { AgentSession } from "./agent-session.ts";
import { createCodingAgent, type CreateAgentOptions } from "./create-agent.ts";
import { prepareRun, type RunSetup, type RunSetupOptions } from "./run-setup.ts";
import { findSessionFile, sessionFileToOpen } from "./find-session.ts";
import { UserError } from "./user-error.ts";

export interface SessionChoice {
  /** --no-session: keep nothing on disk. */
  noSession?: boolean;
  /** --session: a file path, or the start of a session id. */
  session?: string;
  /** -c/--continue: the most recent session of this directory. */
  continueRecent?: boolean;
  /** --session-dir: where sessions are stored instead of the default. */
  sessionDir?: string;
  /** --name/-n: display name for the session. */
  name?: string;
  /** --session-id: the project's session with exactly this id, or a new session given it (with `fork`: the fork's id). */
  sessionId?: string;
  /** --fork: a session file or id prefix whose entries a new session of this project starts with. */
  fork?: string;
}

export interface CreateSessionOptions extends Omit<RunSetupOptions, "previous">, Omit<CreateAgentOptions, "cwd"> {
  sessions: SessionChoice;
  /** --skill, --no-skills, --prompt-template, --no-prompt-templates. */
  resources?: ResourceFlags;
}

export interface CreatedSession {
  session: AgentSession;
  setup: RunSetup;
}

async function openSessionManager(cwd: string, choice: SessionChoice): Promise<SessionManager> {
  const sessionDir = choice.sessionDir ? resolve(cwd, choice.sessionDir) : undefined;
  if (choice.fork !== undefined) return forkSession(cwd, choice.fork, sessionDir, choice.sessionId);
  if (choice.sessionId !== undefined) return sessionWithId(cwd, choice.sessionId, sessionDir, choice.noSession === true);
  if (choice.noSession) return SessionManager.inMemory(cwd);
  if (choice.session) {
    const { path, isNew } = await sessionFileToOpen(cwd, choice.session, sessionDir);
    // A new file records this run's working directory, as any new session does.
    return SessionManager.open(path, sessionDir, isNew ? cwd : undefined);
  }
  if (choice.continueRecent) return SessionManager.continueRecent(cwd, sessionDir);
  return SessionManager.create(cwd, sessionDir);
}

/** pi 0.87.1's --fork: a new session of this project holding a copy of another one's entries. */
async function forkSession(cwd: string, pathOrId: string, sessionDir: string | undefined, id: string | undefined): Promise<SessionManager> {
  let source: string;
  try {
    source = await findSessionFile(cwd, pathOrId, sessionDir);
  } catch (error) {
    throw new UserError(`--fork: ${(error as Error).message}`, 2);
  }
  if (id !== undefined && (await SessionManager.list(cwd, sessionDir)).some((info) => info.id === id)) {
    throw new UserError(`--session-id ${id}: this project already has a session with that id; give the fork another id, or leave --session-id out`, 2);
  }
  try {
    return SessionManager.forkFrom(source, cwd, sessionDir, id);
  } catch (error) {
    if (error instanceof SessionFileError) throw new UserError(`--fork: ${error.message}`, 2);
    throw error;
  }
}

/** pi 0.87.1's --session-id: opens the project's session with this exact id, or starts one with it. */
async function sessionWithId(cwd: string, id: string, sessionDir: string | undefined, inMemory: boolean): Promise<SessionManager> {
  const existing = inMemory ? undefined : (await SessionManager.list(cwd, sessionDir)).find((info) => info.id === id);
  if (existing) return SessionManager.open(existing.path, sessionDir);
  const manager = inMemory ? SessionManager.inMemory(cwd) : SessionManager.create(cwd, sessionDir);
  manager.newSession({ id });
  return manager;
}

/**
 * A session that cannot be written (a read-only home) runs in memory, with one
 * warning at start that says how to fix it, rather than an error after every
 * message and a result that names a file that never appears.
 */
function keepInMemoryIfUnwritable(manager: SessionManager): void {
  const problem = manager.writeProblem();
  if (problem === undefined) return;
  manager.keepInMemory(
    `sessions cannot be saved (${problem}); this session is not saved. Pass --session-dir <a writable folder> to save it, or --no-session to run without saving.`,
  );
}

export async function createAgentSession(options: CreateSessionOptions): Promise<CreatedSession> {
  const sessionManager = await openSessionManager(options.cwd, options.sessions);
  keepInMemoryIfUnwritable(sessionManager);
  const context = sessionManager.buildSessionContext();
  const setup = await prepareRun({ ...options, previous: { model: context.model, thinkingLevel: context.thinkingLevel } });
  // Warnings name the project's files, whose names are the repository's: drawn inert on the terminal.
  const warn = (line: string) => process.stderr.write(`xcsh: ${inertText(line)}\n`);
  const resources = createSessionResources(options.cwd, options.resources ?? {}, setup.settings.enableSkillCommands !== false, warn);
  resources.reportMissingTemplatePaths();
  const { agent, toolSet } = createCodingAgent(setup, { ...options, warn }, resources.promptSkills(), sessionManager);
  agent.state.messages = context.messages;
  const session = new AgentSession({
    cwd: options.cwd,
    agent,
    sessionManager,
    settings: setup.settings,
    registry: setup.registry,
    apiKeyOverride: options.apiKey,
    toolSet,
    resources,
  });
  // A fresh session's file opens with the model and level in use, as pi's do.
  sessionManager.setOpening(() => ({ provider: session.model.provider, modelId: session.model.id, thinkingLevel: session.thinkingLevel }));
  if (options.sessions.name !== undefined) session.setSessionName(options.sessions.name);
  return { session, setup };
}
