/**
 * Checking a provider an extension registers at runtime (`pi.registerProvider`): the
 * checks of models.json, and a name, before anything in the registry changes.
 */
import { getModels } from "../ai/models.ts";
import { THINKING_LEVELS } from "../ai/types.ts";
import { lazySchema } from "../schema/lazy.ts";
import { Type } from "../schema/type.ts";
import { fitsSchema, typeboxValue } from "../schema/validate.ts";
import { describeSchemaErrors } from "./json-file.ts";
import type { RuntimeProviderConfig } from "./model-registry.ts";
import { SUPPORTED_APIS, type ProviderConfig } from "./models-json.ts";
import { isTypedModelConfig } from "./registry-config.ts";

/** Built at the first registration: most runs register no provider. */
export const runtimeProviderSchema = lazySchema(() => {
  const TokenCount = Type.Integer({ minimum: 1 });
  const Price = Type.Number({ minimum: 0 });
  const HeadersSchema = Type.Record(Type.String(), Type.String());
  /** Compat switches are checked by the TypeScript types extensions are written against; here only their container. */
  const CompatSchema = Type.Record(Type.String(), Type.Unknown());

  const RuntimeModelSchema = Type.Object({
    id: Type.String({ minLength: 1 }),
    type: Type.Optional(Type.Enum(["chat", "classifier", "image"])),
    output: Type.Optional(Type.Array(Type.Enum(["text", "image"]))),
    name: Type.Optional(Type.String()),
    api: Type.Optional(Type.String({ minLength: 1 })),
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    reasoning: Type.Optional(Type.Boolean()),
    thinkingLevelMap: Type.Optional(
      Type.Object(Object.fromEntries(THINKING_LEVELS.map((level) => [level, Type.Optional(Type.Union([Type.String(), Type.Null()]))]))),
    ),
    input: Type.Optional(Type.Array(Type.Enum(["text", "image"]))),
    contextWindow: Type.Optional(TokenCount),
    maxTokens: Type.Optional(TokenCount),
    cost: Type.Optional(
      Type.Object({ input: Type.Optional(Price), output: Type.Optional(Price), cacheRead: Type.Optional(Price), cacheWrite: Type.Optional(Price) }),
    ),
    headers: Type.Optional(HeadersSchema),
    compat: Type.Optional(CompatSchema),
  });

  return Type.Object({
    baseUrl: Type.Optional(Type.String({ minLength: 1 })),
    api: Type.Optional(Type.String({ minLength: 1 })),
    apiKey: Type.Optional(Type.String()),
    headers: Type.Optional(HeadersSchema),
    authHeader: Type.Optional(Type.Boolean()),
    compat: Type.Optional(CompatSchema),
    models: Type.Optional(Type.Array(RuntimeModelSchema)),
  });
});

/**
 * The checks of models.json, for a registration: field types, URLs, and an api and a
 * baseUrl for every model — where the provider is built in, its catalog supplies both;
 * a model served by a custom API (an extension's own stream) needs no baseUrl. An api
 * name nobody serves is accepted: an extension may register its stream later, and
 * until then a request fails with "No provider is registered for API".
 */
export function assertValidRuntimeProvider(name: string, config: RuntimeProviderConfig, file: ProviderConfig | undefined): void {
  if (typeof name !== "string" || name.trim() === "") throw new Error(`A provider needs a non-empty name (got ${JSON.stringify(name)})`);
  const fail = (problems: string[]) => {
    throw new Error(`Invalid provider "${name}": ${problems.join("; ")}`);
  };
  const schema = runtimeProviderSchema();
  if (!fitsSchema(schema, config)) fail(describeSchemaErrors(typeboxValue().Errors(schema, config), config));

  // A Set: a provider without baseUrl would otherwise be reported once per model.
  const problems = new Set<string>();
  const checkUrl = (value: string | undefined, field: string) => {
    if (value !== undefined && !URL.canParse(value)) problems.add(`${field}: ${JSON.stringify(value)} is not a URL (expected e.g. "http://localhost:11434/v1")`);
  };
  checkUrl(config.baseUrl, "baseUrl");
  const builtin = getModels(name)[0];
  (config.models ?? []).forEach((model, index) => {
    checkUrl(model.baseUrl, `models[${index}].baseUrl`);
    if (isTypedModelConfig(model)) {
      // pi 1.6.0: a classifier or image model names its API itself (the provider's is a chat API), and needs an endpoint.
      if (model.api === undefined) problems.add(`models[${index}].api: is required on a ${model.type} model (the API its implementation serves)`);
      if ((model.baseUrl ?? config.baseUrl ?? file?.baseUrl) === undefined) problems.add(`models[${index}].baseUrl: is required for a ${model.type} model (on the model or the provider)`);
      return;
    }
    const api = model.api ?? config.api ?? file?.api ?? builtin?.api;
    if (api === undefined) {
      problems.add(`models[${index}].api: is required, on the provider or on the model (e.g. one of ${SUPPORTED_APIS.join(", ")})`);
      return;
    }
    const baseUrl = model.baseUrl ?? config.baseUrl ?? file?.baseUrl ?? builtin?.baseUrl;
    if (baseUrl === undefined && (SUPPORTED_APIS as readonly string[]).includes(api)) {
      problems.add(`baseUrl: is required for models served by the "${api}" API (on the provider or on each model)`);
    }
  });
  if (problems.size > 0) fail([...problems]);
}
