/**
 * /model (a searchable selector, or a pattern to pick directly), /thinking
 * (the levels the model supports) and /compact [focus].
 */
import { getSupportedThinkingLevels, isThinkingLevel } from "../../../ai/thinking.ts";
import type { Model } from "../../../ai/types.ts";
import type { App, BuiltinCommand } from "../app.ts";
import { selectDialog } from "../dialogs.ts";

const key = (model: Model) => `${model.provider}/${model.id}`;

/** Why a list of models may be short: only providers with a key are in it. */
const HOW_TO_ADD = "Only providers with an API key are listed: /login adds one (or set a key such as ANTHROPIC_API_KEY and restart).";

/** True when no real provider has a key: the offline faux models at most. */
const onlyOffline = (available: readonly Model[]) => available.every((model) => model.provider === "faux");

async function chooseModel(app: App, pattern: string): Promise<void> {
  const { session } = app;
  const available = session.models.availableModels();
  let chosen: Model | undefined;
  if (pattern) {
    const lower = pattern.toLowerCase();
    const exact = available.find((model) => key(model).toLowerCase() === lower || model.id.toLowerCase() === lower);
    const partial = available.filter((model) => key(model).toLowerCase().includes(lower) || (model.name ?? "").toLowerCase().includes(lower));
    chosen = exact ?? (partial.length === 1 ? partial[0] : undefined);
    const typed = !chosen && partial.length === 0 ? session.registry.nonChatModelNamed(pattern) : undefined;
    if (typed) return app.say("✗ Not a chat model", typed, "error");
    if (!chosen && partial.length === 0) return app.say("✗ No model matches", `"${pattern}" — /model lists the models you can use. ${HOW_TO_ADD}`, "error");
  }
  if (!chosen) {
    const current = key(session.model);
    const items = available.map((model) => ({
      value: key(model),
      label: key(model) === current ? `${key(model)} ✓` : key(model),
      description: [model.name && model.name !== model.id ? model.name : "", model.contextWindow ? `${Math.round(model.contextWindow / 1000)}k ctx` : "", model.reasoning ? "thinking" : ""]
        .filter(Boolean)
        .join(" · "),
    }));
    if (items.length === 0) return app.say("✗ No model has an API key configured", `${HOW_TO_ADD} To try xcsh offline: xcsh --provider faux.`, "error");
    const picked = await selectDialog(app.surface, "Select a model", items, {
      searchable: true,
      ...(onlyOffline(available) ? { message: "Only the offline faux models: no provider has an API key yet. /login adds one (or set a key such as ANTHROPIC_API_KEY and restart)." } : {}),
      noMatch: `No model matches. ${HOW_TO_ADD}`,
      initialIndex: Math.max(0, available.findIndex((model) => key(model) === current)),
    });
    if (!picked) return;
    chosen = available.find((model) => key(model) === picked.value);
  }
  if (!chosen) return;
  await session.models.setModel(chosen);
  app.footer.refresh();
  app.say(`Model: ${key(chosen)}`, "", "accent");
}

async function chooseThinking(app: App, level: string): Promise<void> {
  const { session } = app;
  const supported = getSupportedThinkingLevels(session.model);
  if (supported.length <= 1) return app.say(`${key(session.model)} has no thinking levels`, "", "warning");
  let wanted = level.trim();
  if (!wanted) {
    const picked = await selectDialog(
      app.surface,
      "Thinking level",
      supported.map((value) => ({ value, label: value === session.thinkingLevel ? `${value} ✓` : value })),
      { initialIndex: Math.max(0, supported.indexOf(session.thinkingLevel)) },
    );
    if (!picked) return;
    wanted = picked.value;
  }
  if (!isThinkingLevel(wanted)) return app.say("✗ Unknown thinking level", `"${wanted}" — use one of: ${supported.join(", ")}`, "error");
  const effective = session.models.setThinkingLevel(wanted);
  app.footer.refresh();
  app.say(`Thinking: ${effective}`, "", "accent");
}

export const modelCommands: BuiltinCommand[] = [
  { name: "model", description: "Switch the model (searchable list, or /model <pattern>)", argumentHint: "[pattern]", run: (app, args) => chooseModel(app, args.trim()) },
  { name: "thinking", description: "Set the thinking level", argumentHint: "[level]", run: (app, args) => chooseThinking(app, args) },
  {
    name: "compact",
    description: "Summarize the conversation to free context",
    argumentHint: "[focus]",
    run: async (app, args) => {
      // A failure is reported by the compaction_end event the conversation shows.
      await app.session.compact(args.trim() || undefined).catch(() => undefined);
      app.footer.refresh();
    },
  },
];
