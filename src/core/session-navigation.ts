/**
 * Moving between sessions and within one: new, switch, fork (from a user
 * message into a new file), clone (the active branch into a new file) and
 * in-place branching. After each move the agent's context is rebuilt from the
 * session file, so what the model sees is always what the file says.
 */
import type { SessionHooks } from "./session-hooks.ts";
import { existsSync } from "node:fs";
import { isThinkingLevel } from "../ai/thinking.ts";
import type { Agent } from "../agent/agent.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import type { SessionManager } from "../session/session-manager.ts";
import { messageText } from "./message-text.ts";
import type { ModelControl } from "./model-control.ts";
import type { ToolSet } from "./tool-set.ts";

/** What navigation needs of the session. */
export interface NavigationHost {
  readonly agent: Agent;
  readonly registry: ModelRegistry;
  readonly sessionManager: SessionManager;
  readonly models: ModelControl;
  readonly hooks: SessionHooks | undefined;
  /** The session's tools: what tool_search loaded follows the branch. */
  readonly tools: Pick<ToolSet, "branchChanged">;
  abort(): Promise<void>;
}

/** Every move that replaces the session answers whether an extension cancelled it. */
export interface Replacement {
  cancelled: boolean;
}

export interface ForkableMessage {
  entryId: string;
  text: string;
}

export class SessionNavigator {
  constructor(private readonly session: NavigationHost) {}

  async newSession(options: { parentSession?: string } = {}): Promise<Replacement> {
    if (await this.session.hooks?.beforeSwitch("new")) return { cancelled: true };
    await this.session.abort();
    return this.replace("new", undefined, async () => {
      this.session.sessionManager.newSession({ parentSession: options.parentSession });
      this.session.models.startNewSessionLevel();
      await this.reload();
    });
  }

  /**
   * Opens another session file and takes up its model and thinking level. `inMemory`:
   * the file is read, never written (a --no-session run's /import).
   */
  async switchSession(sessionPath: string, options: { inMemory?: boolean } = {}): Promise<Replacement> {
    if (!existsSync(sessionPath)) throw new Error(`Session file not found: ${sessionPath}`);
    if (await this.session.hooks?.beforeSwitch("resume", sessionPath)) return { cancelled: true };
    await this.session.abort();
    return this.replace("resume", sessionPath, async () => {
      if (options.inMemory) this.session.sessionManager.openInMemory(sessionPath);
      else this.session.sessionManager.setSessionFile(sessionPath);
      await this.reload({ restoreModel: true });
    });
  }

  /** Runs a move between the old runtime's shutdown and the new one's start. */
  private async replace(reason: "new" | "resume" | "fork", target: string | undefined, move: () => Promise<void>): Promise<Replacement> {
    const previous = this.session.sessionManager.getSessionFile();
    await this.session.hooks?.sessionWillBeReplaced(reason, target);
    await move();
    await this.session.hooks?.sessionReplaced(reason, previous);
    return { cancelled: false };
  }

  /**
   * A new session holding the history before the given user message; returns
   * that message's text so a client can offer it for editing.
   */
  async fork(entryId: string): Promise<{ text: string } & Replacement> {
    const manager = this.session.sessionManager;
    const entry = manager.getEntry(entryId);
    if (!entry || entry.type !== "message" || entry.message.role !== "user") {
      throw new Error(`Entry ${entryId} is not a user message of this session; get_fork_messages lists the ones you can fork from.`);
    }
    const text = messageText(entry.message);
    if (await this.session.hooks?.beforeFork(entryId, "before")) return { text, cancelled: true };
    await this.session.abort();
    const previousFile = manager.getSessionFile();
    const outcome = await this.replace("fork", undefined, async () => {
      if (entry.parentId) this.openBranchCopy(entry.parentId);
      else manager.newSession({ parentSession: previousFile });
      await this.reload();
    });
    return { text, ...outcome };
  }

  /** A new session with a copy of the active branch, at the current position (or at `entryId`). */
  async clone(entryId?: string): Promise<Replacement> {
    const manager = this.session.sessionManager;
    const at = entryId ?? manager.getLeafId();
    if (entryId !== undefined && !manager.getEntry(entryId)) throw new Error(`No entry with id ${entryId} in this session`);
    if (at && (await this.session.hooks?.beforeFork(at, "at"))) return { cancelled: true };
    await this.session.abort();
    return this.replace("fork", undefined, async () => {
      if (at) this.openBranchCopy(at);
      else manager.newSession({ parentSession: manager.getSessionFile() });
      await this.reload();
    });
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
    // Tools tool_search loaded on this branch are declared again; others' are not.
    this.session.tools.branchChanged();
    if (!options.restoreModel) return;
    if (context.model) {
      const model = this.session.registry.find(context.model.provider, context.model.modelId);
      const previous = this.session.agent.state.model;
      if (model) {
        this.session.models.applyModel(model);
        if (previous.provider !== model.provider || previous.id !== model.id) await this.session.hooks?.modelSelected(model, previous, "restore");
      }
    }
    if (isThinkingLevel(context.thinkingLevel)) agent.state.thinkingLevel = context.thinkingLevel;
  }
}
