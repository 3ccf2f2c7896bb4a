/**
 * The `models` global of codemode scripts (pi 1.6.0's contract, docs/codemode.md
 * "Models"): the model catalog by type (chat, classifier, image), and the two kinds of
 * models a script may run with the session's credentials — classifiers
 * (`models.classify`) and image models (`models.generateImages`). Chat models are listed
 * but never run from a script.
 *
 * Two halves. MODELS_PRELUDE is guest code, run in the QuickJS VM next to the other
 * globals: each member sends one `models` message over the worker's host function and
 * waits for the reply. ModelsBridge is the host's half, on the agent's thread: it checks
 * the arguments (a malformed call rejects with the expected shape), asks the model
 * registry, runs at most four classify/generateImages calls at once per script (the
 * others wait), and adds up their usage, which the codemode tool result carries so it
 * counts toward the session's cost. A provider failure is not a rejection: the result's
 * stopReason and errorMessage say it.
 */
import type { ModelType, TypedModel } from "../ai/catalog/model-types.ts";
import type { ClassifierContext, ClassifierResult } from "../ai/classify.ts";
import type { ImagesContext, ImagesResult } from "../ai/generate-images.ts";
import type { Model, Usage } from "../ai/types.ts";

/** What the bridge needs of the model registry (config/model-registry.ts has it all). */
export interface ModelsSource {
  getModelsOfType(type: ModelType, provider?: string): (Model | TypedModel)[];
  getAvailableOfType(type: ModelType, provider?: string): Promise<(Model | TypedModel)[]>;
  findOfType(type: ModelType, provider: string, id: string): Model | TypedModel | undefined;
  classify(model: Pick<TypedModel, "provider" | "id">, context: ClassifierContext, options?: { signal?: AbortSignal }): Promise<ClassifierResult>;
  generateImages(model: Pick<TypedModel, "provider" | "id">, context: ImagesContext, options?: { signal?: AbortSignal }): Promise<ImagesResult>;
}

/** The guest's half: installs `globalThis.models` over `ask(op, argsJson) → Promise<json>`. */
export const MODELS_PRELUDE = `(function (ask) {
  const send = (op, args) => ask(op, JSON.stringify(args === undefined ? {} : args)).then((json) => {
    const value = JSON.parse(json);
    return value === null ? undefined : value;
  });
  const members = {
    getModelsOfType: async (type, provider) => send("getModelsOfType", { type, provider }),
    getAvailableOfType: async (type, provider) => send("getAvailableOfType", { type, provider }),
    getModelOfType: async (type, provider, id) => send("getModelOfType", { type, provider, id }),
    classify: async (model, context) => send("classify", { model, context }),
    generateImages: async (model, context) => send("generateImages", { model, context }),
  };
  const names = Object.keys(members);
  const near = (key) => {
    const lower = key.toLowerCase();
    return names.filter((name) => name.toLowerCase().includes(lower) || lower.includes(name.toLowerCase().slice(0, 5)));
  };
  globalThis.models = new Proxy(members, {
    get(target, key) {
      if (typeof key !== "string" || key in target || key === "then" || key === "toJSON") return target[key];
      const close = near(key);
      throw new TypeError("models." + key + " does not exist." + (close.length ? " Did you mean " + close.map((name) => "models." + name).join(" or ") + "?" : "") + " Members: " + names.join(", ") + ".");
    },
  });
})`;

/** At most this many classify/generateImages calls of one script run at once (pi's limit). */
const MAX_RUNNING = 4;
const TYPES: readonly ModelType[] = ["chat", "classifier", "image"];

const CLASSIFY_SHAPE =
  'models.classify(model, { state: {...}, images?: [{ type: "image", data, mimeType }], questions: { id: { type: "choice", instructions, criteria: { label: meaning } } | { type: "score", instructions, criteria: [lowest, ..., highest] } | { type: "bool", instructions, criteria: { true, false } } } })';
const IMAGES_SHAPE = 'models.generateImages(model, { input: [{ type: "text", text } | { type: "image", data, mimeType }, ...] })';

/** One model call of a script, as the tool result's details list it. */
export interface ModelCallRecord {
  operation: "classify" | "generateImages";
  provider: string;
  model: string;
  stopReason: string;
  cost?: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function typeOf(value: unknown, member: string): ModelType {
  if (typeof value === "string" && (TYPES as readonly string[]).includes(value)) return value as ModelType;
  throw new TypeError(`models.${member}(): the type must be "chat", "classifier" or "image", not ${JSON.stringify(value)}`);
}

function optionalProvider(value: unknown, member: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string") return value;
  throw new TypeError(`models.${member}(): the provider must be a string`);
}

/** A catalog entry as a script sees it: the model with its type, without request headers. */
function info(model: Model | TypedModel): Record<string, unknown> {
  const { headers: _headers, ...rest } = model as Model & { type?: ModelType };
  return { type: (model as { type?: ModelType }).type ?? "chat", ...rest };
}

function modelName(value: unknown, shape: string): { provider: string; id: string } {
  if (!isObject(value) || typeof value.provider !== "string" || typeof value.id !== "string") {
    throw new TypeError(`The first argument must be a model with a provider and an id (from models.getModelOfType()): ${shape}`);
  }
  return { provider: value.provider, id: value.id };
}

function imageBlockProblem(block: unknown): string | undefined {
  if (!isObject(block) || block.type !== "image" || typeof block.data !== "string" || typeof block.mimeType !== "string") return "an image must be { type: \"image\", data: <base64>, mimeType }";
  return undefined;
}

function classifierContext(value: unknown): ClassifierContext {
  const bad = (problem: string): never => {
    throw new TypeError(`models.classify(): ${problem}. Expected ${CLASSIFY_SHAPE}`);
  };
  if (!isObject(value)) return bad("the second argument must be an object");
  if (!isObject(value.state)) bad("state must be an object");
  if (!isObject(value.questions) || Object.keys(value.questions).length === 0) bad("questions must be an object with at least one question");
  for (const [id, question] of Object.entries(value.questions as Record<string, unknown>)) {
    if (!isObject(question) || typeof question.instructions !== "string") bad(`question "${id}" needs a type and instructions`);
    const q = question as Record<string, unknown>;
    const criteria = q.criteria;
    if (q.type === "choice") {
      if (!isObject(criteria) || Object.keys(criteria).length < 2 || Object.values(criteria).some((text) => typeof text !== "string")) bad(`question "${id}" (choice) needs criteria mapping at least two labels to their meaning`);
    } else if (q.type === "score") {
      if (!Array.isArray(criteria) || criteria.length < 2 || criteria.some((text) => typeof text !== "string")) bad(`question "${id}" (score) needs criteria: a list of at least two levels, lowest first`);
    } else if (q.type === "bool") {
      if (!isObject(criteria) || typeof criteria.true !== "string" || typeof criteria.false !== "string") bad(`question "${id}" (bool) needs criteria: { true: "...", false: "..." }`);
    } else bad(`question "${id}" has type ${JSON.stringify(q.type)}; use "choice", "score" or "bool"`);
  }
  if (value.images !== undefined) {
    if (!Array.isArray(value.images)) bad("images must be a list of image blocks");
    for (const block of value.images as unknown[]) {
      const problem = imageBlockProblem(block);
      if (problem) bad(problem);
    }
  }
  return value as unknown as ClassifierContext;
}

function imagesContext(value: unknown): ImagesContext {
  const bad = (problem: string): never => {
    throw new TypeError(`models.generateImages(): ${problem}. Expected ${IMAGES_SHAPE}`);
  };
  if (!isObject(value) || !Array.isArray(value.input) || value.input.length === 0) return bad("input must be a non-empty list of text and image blocks");
  for (const block of value.input as unknown[]) {
    if (isObject(block) && block.type === "text" && typeof block.text === "string") continue;
    const problem = imageBlockProblem(block);
    if (problem) bad(`${problem}, and a text block { type: "text", text }`);
  }
  return value as unknown as ImagesContext;
}

/** The host's half for one script: answers its `models` messages and keeps what they cost. */
export class ModelsBridge {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  readonly records: ModelCallRecord[] = [];
  private usage: Usage | undefined;

  private readonly aborter = new AbortController();

  constructor(
    private readonly source: ModelsSource | undefined,
    outer: AbortSignal | undefined,
  ) {
    outer?.addEventListener("abort", () => this.cancel(), { once: true });
  }

  private get signal(): AbortSignal {
    return this.aborter.signal;
  }

  /** The script ended (or was aborted): calls still running are cancelled and resolve as "aborted". */
  cancel(): void {
    this.aborter.abort();
  }

  /** The summed usage of the script's model calls; undefined when none reported any. */
  totalUsage(): Usage | undefined {
    return this.usage;
  }

  /** Images generated but never passed to image(): the tool result says so. */
  unshownImages = 0;

  /** Answers one message: the reply's value, or an Error whose message the script's promise rejects with. */
  async answer(operation: string, args: unknown): Promise<unknown> {
    const source = this.source;
    if (!source) throw new Error("models is not available in this session");
    const given = isObject(args) ? args : {};
    switch (operation) {
      case "getModelsOfType":
        return source.getModelsOfType(typeOf(given.type, operation), optionalProvider(given.provider, operation)).map(info);
      case "getAvailableOfType":
        return (await source.getAvailableOfType(typeOf(given.type, operation), optionalProvider(given.provider, operation))).map(info);
      case "getModelOfType": {
        const type = typeOf(given.type, operation);
        if (typeof given.provider !== "string" || typeof given.id !== "string") throw new TypeError("models.getModelOfType(type, provider, id): provider and id must be strings");
        const found = source.findOfType(type, given.provider, given.id);
        return found ? info(found) : null;
      }
      case "classify": {
        const name = modelName(given.model, CLASSIFY_SHAPE);
        const context = classifierContext(given.context);
        this.runnable(source, "classifier", name);
        return this.limited(() => source.classify(name, context, { signal: this.signal }), "classify");
      }
      case "generateImages": {
        const name = modelName(given.model, IMAGES_SHAPE);
        const context = imagesContext(given.context);
        this.runnable(source, "image", name);
        return this.limited(() => source.generateImages(name, context, { signal: this.signal }), "generateImages");
      }
      default:
        throw new TypeError(`models.${operation} does not exist`);
    }
  }

  /** Rejects a model that is not of the wanted type, saying what it is and where to look. */
  private runnable(source: ModelsSource, type: "classifier" | "image", name: { provider: string; id: string }): void {
    if (source.findOfType(type, name.provider, name.id)) return;
    const member = type === "classifier" ? "classify" : "generateImages";
    const other = TYPES.find((kind) => kind !== type && source.findOfType(kind, name.provider, name.id));
    const what = other === "chat" ? "is a chat model; chat models are listed but cannot run from scripts" : other ? `is a${other === "image" ? "n image" : " classifier"} model, not a${type === "image" ? "n image" : " classifier"} model` : `is not a known ${type} model`;
    throw new Error(`models.${member}(): ${name.provider}/${name.id} ${what}. models.getAvailableOfType("${type}") lists the ${type} models your credentials can run.`);
  }

  private async limited<T extends ClassifierResult | ImagesResult>(run: () => Promise<T>, operation: ModelCallRecord["operation"]): Promise<T> {
    if (this.running >= MAX_RUNNING) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running++;
    try {
      const result = await run();
      this.record(operation, result);
      return result;
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }

  private record(operation: ModelCallRecord["operation"], result: ClassifierResult | ImagesResult): void {
    this.records.push({ operation, provider: result.provider, model: result.model, stopReason: result.stopReason, ...(result.usage ? { cost: result.usage.cost.total } : {}) });
    if ("output" in result) this.unshownImages += result.output.filter((block) => block.type === "image").length;
    if (!result.usage) return;
    const sum = (this.usage ??= { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
    const add = result.usage;
    sum.input += add.input;
    sum.output += add.output;
    sum.cacheRead += add.cacheRead;
    sum.cacheWrite += add.cacheWrite;
    sum.totalTokens += add.totalTokens;
    for (const key of ["input", "output", "cacheRead", "cacheWrite", "total"] as const) sum.cost[key] = Math.round((sum.cost[key] + add.cost[key]) * 1e10) / 1e10;
  }
}
