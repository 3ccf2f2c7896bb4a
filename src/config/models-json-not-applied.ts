/**
 * pi 1.x's models.json keys that xcsh accepts but does not apply, and the one warning that
 * names them. They describe features xcsh does not have (Anthropic message threads,
 * mid-conversation system messages and tool changes, grammar tools, refusal fallbacks,
 * cache warming), so a file written for pi loads unchanged — not as
 * "unknown key", which reads as a typo — and the person learns which of its switches do
 * nothing here.
 *
 * A value that asks for what xcsh does anyway is not named: `false` for a `supports…`
 * switch (xcsh never uses the feature), an empty `allowedFallbackModels`. pi itself only
 * describes `inputLimits.maxRequestBytes`, `images.maxPerMessage` and `images.maxPerRequest`
 * (its models.md: nothing is rejected or rewritten by them), so xcsh takes them silently too.
 * `inputLimits.images.resize` is applied (tools/image-fit.ts scales new images by it).
 */
import type { ModelsJson } from "./models-json.ts";
import { noteConfigWarning } from "./unknown-keys.ts";

interface NotApplied {
  /** Why the key does nothing in xcsh, as the warning says it. */
  reason: string;
  /** A value that asks for what xcsh does anyway: not named. */
  inert?: (value: unknown) => boolean;
}

const falseIsInert = (value: unknown) => value === false;

/** compat switches, by key. */
const COMPAT_NOT_APPLIED: Record<string, NotApplied> = {
  supportsMessageThreads: { reason: "every request sends the whole conversation", inert: falseIsInert },
  supportsMidConvoSystemMessages: { reason: "xcsh sends no system message after the conversation starts", inert: falseIsInert },
  supportsMidConvoToolAdditions: { reason: "tools are declared at the start of each request", inert: falseIsInert },
  supportsMidConvoToolChanges: { reason: "tools are declared at the start of each request", inert: falseIsInert },
  supportsMidConvoEffort: { reason: "a thinking change is sent as the request's reasoning setting", inert: falseIsInert },
  supportsOpenAIGrammarTools: { reason: "xcsh's tools have no grammar formats", inert: falseIsInert },
  supportsAdditionalTools: { reason: "tools are declared at the start of each request", inert: falseIsInert },
  supportsToolSearch: { reason: "tool_search declares the tools it finds in the next request", inert: falseIsInert },
  supportsExplicitPromptCacheMode: { reason: "xcsh sends no prompt_cache_options", inert: falseIsInert },
  allowedFallbackModels: { reason: "xcsh asks for no refusal fallback", inert: (value) => Array.isArray(value) && value.length === 0 },
};

/** Model (and modelOverrides) fields, by path below the model. */
const MODEL_NOT_APPLIED: Record<string, NotApplied> = {
  promptCache: { reason: "xcsh does not warm prompt caches" },
};

function valueAt(content: unknown, path: string): unknown {
  let current = content;
  for (const segment of path.split(".")) {
    if (typeof current !== "object" || current === null) return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** `"<path>" (<reason>)` for each key of `table` that `content` sets to a value xcsh would not act on. */
function listed(content: unknown, at: string, table: Record<string, NotApplied>): string[] {
  return Object.entries(table).flatMap(([path, { reason, inert }]) => {
    const value = valueAt(content, path);
    return value === undefined || inert?.(value) ? [] : [`"${at}.${path}" (${reason})`];
  });
}

/** Notes the one warning for `file` naming the pi 1.x keys it sets that xcsh does not apply. */
export function noteNotAppliedModelKeys(modelsJson: ModelsJson, file: string): void {
  const found: string[] = [];
  for (const [name, provider] of Object.entries(modelsJson.providers)) {
    const at = `providers.${name}`;
    found.push(...listed(provider.compat, `${at}.compat`, COMPAT_NOT_APPLIED));
    (provider.models ?? []).forEach((model, index) => {
      found.push(...listed(model.compat, `${at}.models[${index}].compat`, COMPAT_NOT_APPLIED));
      found.push(...listed(model, `${at}.models[${index}]`, MODEL_NOT_APPLIED));
    });
    for (const [id, override] of Object.entries(provider.modelOverrides ?? {})) {
      found.push(...listed(override.compat, `${at}.modelOverrides.${id}.compat`, COMPAT_NOT_APPLIED));
      found.push(...listed(override, `${at}.modelOverrides.${id}`, MODEL_NOT_APPLIED));
    }
  }
  if (found.length === 0) return;
  noteConfigWarning(`${file}\0not-applied`, `${file}: keys xcsh accepts but does not apply: ${found.join(", ")}. See docs/providers.md.`);
}
