/**
 * Moving between sessions and within one: new, switch, fork (from a user
 * message into a new file), clone (the active branch into a new file) and
 * in-place branching. After each move the agent's context is rebuilt from the
 * session file, so what the model sees is always what the file says.
 */
import { existsSync } from "node:fs";
import { isThinkingLevel } from "../ai/thinking.ts";
import type { Agent } from "../agent/agent.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { messageText } from "./message-text.ts";
import type { ModelControl } from "./model-control.ts";

/** What navigation needs of the session. */
export interface NavigationHost {
  readonly agent: Agent;
  readonly registry: ModelRegistry;
  readonly sessionManager: SessionManager;
  readonly models: ModelControl;
  abort(): Promise<void>;
}

export interface ForkableMessage {
  entryId: string;
  text: string;
}

export class SessionNavigator {
  constructor(private readonly session: NavigationHost) {}

  async newSession(options: { parentSession?: string } = {}): Promise<void> {
    await this.session.abort();
    this.session.sessionManager.newSession({ parentSession: options.parentSession });
    await this.reload();
  }

  /** Opens another session file and takes up its model and thinking level. */
  async switchSession(sessionPath: string): Promise<void> {
    if (!existsSync(sessionPath)) throw new Error(`Session file not found: ${sessionPath}`);
    await this.session.abort();
    this.session.sessionManager.setSessionFile(sessionPath);
    await this.reload({ restoreModel: true });
  }

  /**
   * A new session holding the history before the given user message; returns
   * that message's text so a client can offer it for editing.
   */
  async fork(entryId: string): Promise<{ text: string }> {
    const manager = this.session.sessionManager;
    const entry = manager.getEntry(entryId);
    if (!entry || entry.type !== "message" || entry.message.role !== "user") {
      throw new Error(`Entry ${entryId} is not a user message of this session; get_fork_messages lists the ones you can fork from.`);
    }
    const text = messageText(entry.message);
    await this.session.abort();
    const previousFile = manager.getSessionFile();
    if (entry.parentId) this.openBranchCopy(entry.parentId);
    else manager.newSession({ parentSession: previousFile });
    await this.reload();
    return { text };
  }

  /** A new session with a copy of the active branch, at the current position. */
  async clone(): Promise<void> {
    const manager = this.session.sessionManager;
    await this.session.abort();
    const leaf = manager.getLeafId();
    if (leaf) this.openBranchCopy(leaf);
    else manager.newSession({ parentSession: manager.getSessionFile() });
    await this.reload();
  }

  /** Moves the current position to an earlier entry of this session; the next prompt branches from there. */
  async navigateTo(entryId: string | null): Promise<void> {
    const manager = this.session.sessionManager;
    await this.session.abort();
    if (entryId === null) manager.resetLeaf();
    else {
      if (!manager.getEntry(entryId)) throw new Error(`No entry with id ${entryId} in this session`);
      manager.branch(entryId);
    }
    await this.reload();
  }

  /** User messages on the active branch, oldest first. */
  forkableMessages(): ForkableMessage[] {
    return this.session.sessionManager
      .getBranch()
      .flatMap((entry) => (entry.type === "message" && entry.message.role === "user" ? [{ entryId: entry.id, text: messageText(entry.message) }] : []));
  }

  private openBranchCopy(leafId: string): void {
    const manager = this.session.sessionManager;
    const path = manager.createBranchedSession(leafId);
    if (path && manager.getSessionFile() !== path) manager.setSessionFile(path);
  }

  /** Rebuilds the agent's context (and optionally model and thinking level) from the session file. */
  private async reload(options: { restoreModel?: boolean } = {}): Promise<void> {
    const agent = this.session.agent;
    agent.clearQueues();
    const context = this.session.sessionManager.buildSessionContext();
    agent.state.messages = context.messages;
    if (!options.restoreModel) return;
    if (context.model) {
      const model = this.session.registry.find(context.model.provider, context.model.modelId);
      if (model) this.session.models.applyModel(model);
    }
    if (isThinkingLevel(context.thinkingLevel)) agent.state.thinkingLevel = context.thinkingLevel;
  }
}
