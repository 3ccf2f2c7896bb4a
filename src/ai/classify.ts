/**
 * Classifier requests (pi 1.x's model type "classifier"): one HTTP request answers typed
 * questions about JSON state, and for some models images, with probabilities. Two wire
 * formats serve the built-in classifiers:
 *
 * - System One (`typesafe-system-one`: OpenRouter, Vercel AI Gateway, OpenCode Zen):
 *   POST <baseUrl>/systemone with `{ model, state, questions }`; a yes/no question is
 *   sent as type "noul" and answered as `{ type: "noul", noul: p }`. Images go where the
 *   model's `compat.imageInput` says: `assets` named from the state (TypeSafe, with an
 *   opt-in header), data URLs before the state (OpenRouter) or an `images` list (Clef).
 * - OpenAI's Decisions API (`openai-decisions`): POST <baseUrl>/decisions with the state
 *   as JSON text (or a user message with images), questions as a list of `choice`,
 *   `score` and `predicate`, answers as a list by question name.
 *
 * A failure is a value: the result's stopReason is "error" (or "aborted") with an
 * errorMessage, never a throw. Usage is priced from the model's catalog prices.
 * Loaded on the first classify call only.
 */
import type { ClassifierModel } from "./catalog/model-types.ts";
import type { ImageContent, Usage } from "./types.ts";
import { describeProviderFailure, retryAfterFromHeaders } from "./provider-errors.ts";
import { calculateCost, emptyUsage } from "./usage.ts";
import { readBodyStart, ServiceError, serviceWords } from "./service-error.ts";
import { redactCredentials } from "./verbose-error-body.ts";

export type ClassifierQuestion =
  | { type: "choice"; instructions: string; criteria: Record<string, string> }
  | { type: "score"; instructions: string; criteria: string[] }
  | { type: "bool"; instructions: string; criteria: { true: string; false: string } };

export interface ClassifierContext {
  state: Record<string, unknown>;
  images?: ImageContent[];
  questions: Record<string, ClassifierQuestion>;
}

export type ClassifierAnswer =
  | { type: "choice"; choice: string; probabilities: Record<string, number>; confidence: number }
  | { type: "score"; score: number; confidence: number }
  | { type: "bool"; probability: number };

export interface ClassifierResult {
  api: string;
  provider: string;
  model: string;
  answers: Record<string, ClassifierAnswer>;
  usage?: Usage;
  stopReason: "stop" | "error" | "aborted";
  errorMessage?: string;
  timestamp: number;
}

/** What a typed request needs besides the model: its credential, headers and abort signal. */
export interface TypedRequestOptions {
  apiKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

/** Statuses another try may mend (a 504 is not one: OpenAI's gateway times out the same input again). */
const RETRY_STATUSES: ReadonlySet<number> = new Set([408, 429, 500, 502, 503, 529]);
/** Tries after the first, as pi makes them. */
const RETRIES = 2;
const MAX_RETRY_WAIT_MS = 10_000;

/** Waits `ms`, or less when the signal aborts (the next fetch then fails as aborted). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/**
 * POSTs JSON with bearer auth and returns the parsed answer; throws ServiceError on an
 * HTTP failure (its message one redacted line from the first 8 KiB of the body, service-error.ts). A busy or failing service (429, 5xx) and a dropped connection are tried
 * twice more, after the wait the service asks for (at most 10 s) or 0.5 s, then 1 s.
 */
export async function postJson(label: string, url: string, body: unknown, options: TypedRequestOptions, provider: string): Promise<unknown> {
  if (!options.apiKey) throw new Error(`No API key for provider ${provider}`);
  const secrets = [options.apiKey, ...Object.values(options.headers ?? {})];
  const init: RequestInit = {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${options.apiKey}`, ...options.headers },
    body: JSON.stringify(body),
    ...(options.signal ? { signal: options.signal } : {}),
  };
  for (let attempt = 0; ; attempt++) {
    const last = attempt >= RETRIES;
    let response: Response;
    try {
      response = await fetch(url, init);
    } catch (error) {
      if (last || options.signal?.aborted) throw error;
      await pause(500 * 2 ** attempt, options.signal);
      continue;
    }
    if (response.ok) {
      const text = await response.text();
      try {
        return JSON.parse(text);
      } catch {
        throw new Error(`${label} answered with something other than JSON: ${serviceWords(text, true, secrets)}`);
      }
    }
    // A refusal: only its start is read, and the connection let go (a busy service's body is not needed at all).
    const refusal = await readBodyStart(response);
    if (last || !RETRY_STATUSES.has(response.status)) throw new ServiceError(label, response.status, serviceWords(refusal.text, refusal.complete, secrets));
    const asked = retryAfterFromHeaders(Object.fromEntries(response.headers));
    await pause(Math.min(asked ?? 500 * 2 ** attempt, MAX_RETRY_WAIT_MS), options.signal);
  }
}

/**
 * A failure as one line: the service's own words for an HTTP error, else what went wrong on
 * the way. The line goes back to the script, so to the model and the session file: the key
 * and header values sent are redacted, as a chat provider's errors are (a service may echo them).
 */
export function failureText(error: unknown, provider: string, url: string, options: TypedRequestOptions = {}): string {
  const secrets = [options.apiKey, ...Object.values(options.headers ?? {})];
  if (error instanceof ServiceError) return redactCredentials(error.message, secrets);
  return describeProviderFailure(error, provider, url, secrets).message;
}

/** `<baseUrl>/<path>`, whether or not the base ends in a slash. */
export function endpoint(baseUrl: string, path: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/${path}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function numberOf(label: string, value: unknown, what: string): number {
  if (typeof value !== "number" || !Number.isFinite(value)) throw new Error(`${label} returned no valid ${what}`);
  return value;
}

/** Usage from `{ input_tokens, output_tokens }`, priced from the catalog; undefined when the service reports none. */
function usageOf(value: unknown, model: ClassifierModel): Usage | undefined {
  if (!isObject(value) || (value.input_tokens === undefined && value.output_tokens === undefined)) return undefined;
  const count = (tokens: unknown) => (typeof tokens === "number" && Number.isFinite(tokens) && tokens > 0 ? tokens : 0);
  const usage = emptyUsage();
  usage.input = count(value.input_tokens);
  usage.output = count(value.output_tokens);
  usage.totalTokens = usage.input + usage.output;
  calculateCost(model, usage);
  return usage;
}

// --- System One ---------------------------------------------------------------------

const SYSTEM_ONE = "System One API";
/** Clef takes at most this many images, as data URLs. */
const MAX_LISTED_IMAGES = 4;

/** Where the model's service takes images: its compat, else OpenRouter's form on OpenRouter, else TypeSafe's. */
function imageForm(model: ClassifierModel): { input: "assets" | "state-image-urls" | "images"; optIn: boolean } {
  const onOpenRouter = model.provider === "openrouter" || model.baseUrl.includes("openrouter.ai");
  return {
    input: model.compat?.imageInput ?? (onOpenRouter ? "state-image-urls" : "assets"),
    optIn: model.compat?.sendImageOptInHeader ?? !onOpenRouter,
  };
}

function systemOneRequest(model: ClassifierModel, context: ClassifierContext): { body: Record<string, unknown>; headers: Record<string, string> } {
  const questions = Object.fromEntries(Object.entries(context.questions).map(([id, question]) => [id, question.type === "bool" ? { ...question, type: "noul" } : question]));
  const body: Record<string, unknown> = { model: model.id, state: context.state, questions };
  const images = context.images ?? [];
  if (images.length === 0) return { body, headers: {} };
  const form = imageForm(model);
  const dataUrl = (image: ImageContent) => `data:${image.mimeType};base64,${image.data}`;
  if (form.input === "images") {
    if (images.length > MAX_LISTED_IMAGES) throw new Error(`${SYSTEM_ONE} takes at most ${MAX_LISTED_IMAGES} images for ${model.id}, got ${images.length}`);
    const odd = images.find((image) => !["image/png", "image/jpeg", "image/webp"].includes(image.mimeType));
    if (odd) throw new Error(`${SYSTEM_ONE} takes PNG, JPEG and WebP images for ${model.id}, got ${odd.mimeType}`);
    body.images = images.map(dataUrl);
  } else if (form.input === "state-image-urls") {
    body.state = [...images.map((image) => ({ type: "image_url", image_url: { url: dataUrl(image) } })), context.state];
  } else {
    const formats: Record<string, string> = { "image/png": "png", "image/jpeg": "jpeg" };
    const assets: Record<string, unknown> = {};
    images.forEach((image, index) => {
      const format = formats[image.mimeType];
      if (!format) throw new Error(`${SYSTEM_ONE} takes PNG and JPEG images for ${model.id}, got ${image.mimeType}`);
      assets[`<image-${index + 1}>`] = { type: "image", format, data_base64: image.data };
    });
    body.assets = assets;
    // The service wants every asset named in the request: the names go before the state.
    body.state = [...Object.keys(assets), context.state];
  }
  return { body, headers: form.optIn ? { "TypeSafe-Danger-Zone-Images": "true" } : {} };
}

function systemOneAnswers(value: unknown, context: ClassifierContext): Record<string, ClassifierAnswer> {
  if (!isObject(value)) throw new Error(`${SYSTEM_ONE} returned no answers`);
  const answers: Record<string, ClassifierAnswer> = {};
  for (const [id, question] of Object.entries(context.questions)) {
    const answer = value[id];
    if (!isObject(answer)) throw new Error(`${SYSTEM_ONE} returned no answer for ${id}`);
    if (question.type === "choice") {
      if (answer.type !== "choice" || typeof answer.choice !== "string") throw new Error(`${SYSTEM_ONE} returned no choice for ${id}`);
      if (!isObject(answer.probabilities)) throw new Error(`${SYSTEM_ONE} returned no valid probabilities for ${id}`);
      const probabilities = Object.fromEntries(Object.entries(answer.probabilities).map(([label, p]) => [label, numberOf(SYSTEM_ONE, p, `probability for ${id}.${label}`)]));
      answers[id] = { type: "choice", choice: answer.choice, probabilities, confidence: numberOf(SYSTEM_ONE, answer.confidence, `confidence for ${id}`) };
    } else if (question.type === "score") {
      if (answer.type !== "score") throw new Error(`${SYSTEM_ONE} returned no score for ${id}`);
      answers[id] = { type: "score", score: numberOf(SYSTEM_ONE, answer.score, `score for ${id}`), confidence: numberOf(SYSTEM_ONE, answer.confidence, `confidence for ${id}`) };
    } else {
      if (answer.type !== "noul") throw new Error(`${SYSTEM_ONE} returned no yes/no answer for ${id}`);
      answers[id] = { type: "bool", probability: numberOf(SYSTEM_ONE, answer.noul, `probability for ${id}`) };
    }
  }
  return answers;
}

async function classifySystemOne(model: ClassifierModel, context: ClassifierContext, options: TypedRequestOptions, result: ClassifierResult): Promise<void> {
  const request = systemOneRequest(model, context);
  const body = await postJson(SYSTEM_ONE, endpoint(model.baseUrl, "systemone"), request.body, { ...options, headers: { ...request.headers, ...options.headers } }, model.provider);
  if (!isObject(body)) throw new Error(`${SYSTEM_ONE} returned an unexpected response`);
  // Before the answers: a request with malformed answers was still billed.
  const usage = usageOf(body.usage, model);
  if (usage) result.usage = usage;
  result.answers = systemOneAnswers(body.answers, context);
}

// --- OpenAI Decisions ---------------------------------------------------------------

const DECISIONS = "OpenAI Decisions";

function decisionsQuestion(name: string, question: ClassifierQuestion): Record<string, unknown> {
  if (question.type === "choice") {
    const choices = Object.entries(question.criteria).map(([value, description]) => (description ? { value, description } : { value }));
    return { type: "choice", name, instructions: question.instructions, choices };
  }
  if (question.type === "score") return { type: "score", name, instructions: question.instructions, levels: question.criteria.map((label) => ({ label })) };
  // A predicate has no criteria: what true and false mean goes into its instructions.
  const meanings = [question.criteria.true ? `True means: ${question.criteria.true}` : "", question.criteria.false ? `False means: ${question.criteria.false}` : ""].filter(Boolean);
  return { type: "predicate", name, instructions: meanings.length ? `${question.instructions}\n\n${meanings.join("\n")}` : question.instructions };
}

function decisionsInput(context: ClassifierContext): unknown {
  const state = JSON.stringify(context.state);
  const images = context.images ?? [];
  if (images.length === 0) return state;
  const parts = images.map((image) => ({ type: "input_image", image_url: `data:${image.mimeType};base64,${image.data}` }));
  return [{ role: "user", content: [{ type: "input_text", text: state }, ...parts] }];
}

function decisionsAnswer(id: string, question: ClassifierQuestion, answer: Record<string, unknown>): ClassifierAnswer {
  if (answer.type === "refusal") throw new Error(`${DECISIONS} refused to answer ${id}`);
  if (question.type === "choice") {
    if (answer.type !== "choice" || typeof answer.choice !== "string" || !Array.isArray(answer.probabilities)) throw new Error(`${DECISIONS} returned no choice for ${id}`);
    const probabilities: Record<string, number> = {};
    for (const entry of answer.probabilities) {
      if (!isObject(entry) || typeof entry.value !== "string") throw new Error(`${DECISIONS} returned no valid probabilities for ${id}`);
      probabilities[entry.value] = numberOf(DECISIONS, entry.probability, `probability for ${id}.${entry.value}`);
    }
    return { type: "choice", choice: answer.choice, probabilities, confidence: numberOf(DECISIONS, answer.confidence, `confidence for ${id}`) };
  }
  if (question.type === "score") {
    if (answer.type !== "score") throw new Error(`${DECISIONS} returned no score for ${id}`);
    return { type: "score", score: numberOf(DECISIONS, answer.score, `score for ${id}`), confidence: numberOf(DECISIONS, answer.confidence, `confidence for ${id}`) };
  }
  if (answer.type !== "predicate") throw new Error(`${DECISIONS} returned no yes/no answer for ${id}`);
  return { type: "bool", probability: numberOf(DECISIONS, answer.probability, `probability for ${id}`) };
}

async function classifyDecisions(model: ClassifierModel, context: ClassifierContext, options: TypedRequestOptions, result: ClassifierResult): Promise<void> {
  const request = { model: model.id, input: decisionsInput(context), questions: Object.entries(context.questions).map(([id, question]) => decisionsQuestion(id, question)) };
  const body = await postJson(DECISIONS, endpoint(model.baseUrl, "decisions"), request, options, model.provider);
  if (!isObject(body) || !Array.isArray(body.answers)) throw new Error(`${DECISIONS} returned an unexpected response`);
  const usage = usageOf(body.usage, model);
  if (usage) result.usage = usage;
  const byName = new Map(body.answers.filter(isObject).map((answer) => [answer.name, answer] as const));
  const answers: Record<string, ClassifierAnswer> = {};
  for (const [id, question] of Object.entries(context.questions)) {
    const answer = byName.get(id);
    if (!answer) throw new Error(`${DECISIONS} returned no answer for ${id}`);
    answers[id] = decisionsAnswer(id, question, answer);
  }
  result.answers = answers;
}

// --- the entry --------------------------------------------------------------------------

const TRANSPORTS: Record<ClassifierModel["api"], typeof classifySystemOne> = {
  "typesafe-system-one": classifySystemOne,
  "openai-decisions": classifyDecisions,
};

/** Runs one classification. Never throws: a failure is the result's stopReason and errorMessage. */
export async function classify(model: ClassifierModel, context: ClassifierContext, options: TypedRequestOptions = {}): Promise<ClassifierResult> {
  const result: ClassifierResult = { api: model.api, provider: model.provider, model: model.id, answers: {}, stopReason: "stop", timestamp: Date.now() };
  try {
    const transport = TRANSPORTS[model.api];
    if (!transport) throw new Error(`xcsh cannot run classifier API "${model.api}"`);
    if (context.images?.length && !model.input.includes("image")) throw new Error(`${model.provider}/${model.id} does not take images: its input is text only`);
    await transport(model, context, options, result);
  } catch (error) {
    result.answers = {};
    result.stopReason = options.signal?.aborted ? "aborted" : "error";
    result.errorMessage = options.signal?.aborted ? "Request aborted" : failureText(error, model.provider, model.baseUrl, options);
  }
  return result;
}
