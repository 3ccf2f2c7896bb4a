/**
 * Switching the session's model and thinking level: the change takes effect for
 * the next model call, is recorded in the session file, and the thinking level
 * is kept within what the model supports.
 */
import type { SessionHooks } from "./session-hooks.ts";
import { clampThinkingLevel, getSupportedThinkingLevels } from "../ai/thinking.ts";
import type { Model, ModelThinkingLevel } from "../ai/types.ts";
import { credentialHint } from "../ai/env-api-keys.ts";
import { loginCommand } from "../auth/signin/providers.ts";
import type { Agent } from "../agent/agent.ts";
import type { ModelRegistry } from "../config/model-registry.ts";
import { scopeModels } from "../config/model-resolver.ts";
import type { Settings } from "../config/settings.ts";
import type { SessionManager } from "../session/session-manager.ts";
import type { AgentSessionEvent } from "./session-events.ts";

/** What model control needs of the session. */
export interface ModelHost {
  readonly agent: Agent;
  readonly registry: ModelRegistry;
  readonly sessionManager: SessionManager;
  readonly model: Model;
  readonly thinkingLevel: ModelThinkingLevel;
  readonly hooks: SessionHooks | undefined;
  emit(event: AgentSessionEvent): Promise<void>;
  /**
   * `enabledModels` narrows cycling to the models its patterns pick; `modelThinkingLevels`
   * and `defaultThinkingLevel` set the level a model switched to starts with (pi 0.87.1).
   */
  readonly settings?: Pick<Settings, "enabledModels" | "modelThinkingLevels" | "defaultThinkingLevel">;
}

export interface CycleModelResult {
  model: Model;
  thinkingLevel: ModelThinkingLevel;
  isScoped: boolean;
}

export class ModelControl {
  /** The provider --api-key was given for: the key applies to that provider only. */
  private readonly overrideProvider: string | undefined;

  constructor(
    private readonly session: ModelHost,
    private readonly apiKeyOverride: string | undefined,
  ) {
    this.overrideProvider = apiKeyOverride ? session.agent.state.model.provider : undefined;
  }

  /** The key for a model's provider; throws with what to do when there is none. */
  async apiKeyFor(model: Model): Promise<string> {
    const override = model.provider === this.overrideProvider ? this.apiKeyOverride : undefined;
    const key = await this.session.registry.getApiKey(model, override);
    if (key) return key;
    const envVars = credentialHint(model.provider);
    const signIn = `run \`${loginCommand(model.provider)}\``;
    const how = envVars ? `set ${envVars}, or ${signIn}` : `${signIn}, or set "apiKey" for provider "${model.provider}" in models.json`;
    throw new Error(`No API key for ${model.provider}/${model.id}: ${how}.`);
  }

  /**
   * Request headers for a model, resolved now: models.json `!command` and env
   * values, and `Authorization: Bearer` for `authHeader` providers with the same
   * key a request would use. A configured key that cannot be resolved (`${VAR}`
   * unset, a failing command) fails here with its own message: the key path only
   * knows "no key", which would hide the cause.
   */
  async headersFor(model: Model): Promise<Record<string, string>> {
    const key = await this.apiKeyFor(model).catch((error: unknown) => {
      if (error instanceof Error && error.name === "UnresolvableValueError") throw error;
      return undefined;
    });
    return this.session.registry.getHeaders(model, key);
  }

  /** Points the agent at a model; its key and headers are resolved on each call. */
  applyModel(model: Model): void {
    this.session.agent.state.model = model;
  }

  /**
   * Switches model. The thinking level, clamped to the new model: `level` when given (an
   * enabledModels pattern's suffix), else the settings' level for that model, else their
   * defaultThinkingLevel, else the level in use (so without settings a switch keeps it).
   */
  async setModel(model: Model, source: "set" | "cycle" = "set", level?: ModelThinkingLevel): Promise<Model> {
    // A classifier or image model (pi 1.x's typed models) cannot run a turn. (Asked only for a model
    // the chat list lacks: the typed catalog stays unread otherwise.)
    const note = this.session.registry.find(model.provider, model.id) ? undefined : this.session.registry.nonChatModelNote(model.provider, model.id);
    if (note) throw new Error(note);
    await this.apiKeyFor(model);
    const previousLevel = this.session.thinkingLevel;
    const previousModel = this.session.model;
    this.applyModel(model);
    this.session.sessionManager.appendModelChange(model.provider, model.id);
    const settings = this.session.settings;
    const wanted = level ?? settings?.modelThinkingLevels?.[`${model.provider}/${model.id}`] ?? settings?.defaultThinkingLevel ?? previousLevel;
    const clamped = clampThinkingLevel(model, wanted);
    if (clamped !== previousLevel) this.setThinkingLevel(clamped);
    await this.session.hooks?.modelSelected(model, previousModel, source);
    return model;
  }

  /**
   * Models with a key configured. The offline faux model needs no key, so it
   * would always be there; it is offered only while it is the model in use.
   */
  availableModels(): Model[] {
    const usingFaux = this.session.model.provider === "faux";
    return this.session.registry.getAvailable().filter((model) => model.provider !== "faux" || usingFaux);
  }

  /**
   * The next (or previous) model that has a key configured: among `scope` when one is
   * given (the person's /scoped-models), else among those settings' enabledModels picks
   * when it picks any, else among all; undefined when there is no other.
   */
  async cycleModel(direction: "forward" | "backward" = "forward", scope?: readonly Model[]): Promise<CycleModelResult | undefined> {
    const available = this.availableModels();
    const patterns = this.session.settings?.enabledModels ?? [];
    type Choice = { model: Model; thinkingLevel?: ModelThinkingLevel };
    const has = (model: Model) => available.some((each) => each.provider === model.provider && each.id === model.id);
    // In the scope's order: the person chose it.
    const scoped: Choice[] = scope
      ? scope.filter(has).map((model) => ({ model, thinkingLevel: undefined }))
      : patterns.length > 0
        ? scopeModels(available, patterns).scoped
        : [];
    const isScoped = scope !== undefined || scoped.length > 0;
    const pool: Choice[] = isScoped ? scoped : available.map((model) => ({ model, thinkingLevel: undefined }));
    if (pool.length === 0) return undefined;
    const current = this.session.model;
    const index = pool.findIndex(({ model }) => model.provider === current.provider && model.id === current.id);
    const step = direction === "forward" ? 1 : -1;
    // Not in the list (a scope without the current model): forward starts at the first, backward at the last.
    const { model: next, thinkingLevel } = pool[index === -1 ? (step === 1 ? 0 : pool.length - 1) : (index + step + pool.length) % pool.length]!;
    if (next.provider === current.provider && next.id === current.id) return undefined;
    await this.setModel(next, "cycle", thinkingLevel);
    return { model: next, thinkingLevel: this.session.thinkingLevel, isScoped };
  }

  /** Sets the level, clamped to the model; returns the level in effect. */
  /**
   * A new session starts at the level settings give the model in use (its modelThinkingLevels
   * entry, else defaultThinkingLevel), as pi 1.6.0 starts every new session at its default;
   * without either setting the level in use is kept (xcsh's default is "off", not pi's "medium").
   */
  startNewSessionLevel(): void {
    const { model, settings } = this.session;
    const wanted = settings?.modelThinkingLevels?.[`${model.provider}/${model.id}`] ?? settings?.defaultThinkingLevel;
    if (wanted !== undefined) this.setThinkingLevel(wanted);
  }

  setThinkingLevel(level: ModelThinkingLevel): ModelThinkingLevel {
    const effective = clampThinkingLevel(this.session.model, level);
    const previous = this.session.thinkingLevel;
    if (effective !== previous) {
      this.session.agent.state.thinkingLevel = effective;
      this.session.sessionManager.appendThinkingLevelChange(effective);
      void this.session.emit({ type: "thinking_level_changed", level: effective });
      void this.session.hooks?.thinkingLevelSelected(effective, previous);
    }
    return effective;
  }

  /** The next supported level; undefined for a model without reasoning. */
  cycleThinkingLevel(): ModelThinkingLevel | undefined {
    const levels = getSupportedThinkingLevels(this.session.model);
    if (levels.length <= 1) return undefined;
    const index = levels.indexOf(this.session.thinkingLevel);
    return this.setThinkingLevel(levels[(index + 1) % levels.length]);
  }
}
