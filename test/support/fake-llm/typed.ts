/**
 * The fake server's answers for models that do not chat: System One classifiers
 * (POST …/systemone), OpenAI's Decisions API (POST …/decisions) and OpenRouter's image
 * generation (POST …/chat/completions with `stream: false` and `modalities`). Requests
 * are recorded apart from the chat ones (`typedRequests`), and answered from their own
 * script (`enqueueTyped`), else with a default answer that answers every question asked:
 * a choice picks its first label, a score the top level, a yes/no 0.8; an image request
 * gets one 1×1 PNG and a line of text.
 */

export type TypedApi = "system-one" | "decisions" | "images";

export interface TypedRequest {
  api: TypedApi;
  path: string;
  headers: Record<string, string>;
  body: any;
  model: string;
  receivedAt: number;
}

export interface TypedReplyValue {
  status?: number;
  body: unknown;
  delayMs?: number;
}

export type TypedReply = TypedReplyValue | ((request: TypedRequest) => TypedReplyValue);

/** A 1×1 transparent PNG. */
export const TINY_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export function typedRouteOf(method: string, path: string, body: any): TypedApi | undefined {
  if (method !== "POST") return undefined;
  if (path.endsWith("/systemone")) return "system-one";
  if (path.endsWith("/decisions")) return "decisions";
  if (path.endsWith("/chat/completions") && body && body.stream === false && Array.isArray(body.modalities)) return "images";
  return undefined;
}

function systemOneAnswers(questions: Record<string, any>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(questions ?? {}).map(([id, question]) => {
      if (question.type === "choice") {
        const labels = Object.keys(question.criteria ?? {});
        const probabilities = Object.fromEntries(labels.map((label, index) => [label, index === 0 ? 0.7 : 0.3 / Math.max(1, labels.length - 1)]));
        return [id, { type: "choice", choice: labels[0], probabilities, confidence: 0.7 }];
      }
      if (question.type === "score") return [id, { type: "score", score: (question.criteria?.length ?? 1) - 1, confidence: 0.6 }];
      return [id, { type: "noul", noul: 0.8 }];
    }),
  );
}

function decisionsAnswers(questions: any[]): unknown[] {
  return (questions ?? []).map((question) => {
    if (question.type === "choice") {
      const values = (question.choices ?? []).map((choice: { value: string }) => choice.value);
      return { name: question.name, type: "choice", choice: values[0], confidence: 0.7, probabilities: values.map((value: string, index: number) => ({ value, probability: index === 0 ? 0.7 : 0.3 / Math.max(1, values.length - 1) })) };
    }
    if (question.type === "score") return { name: question.name, type: "score", score: (question.levels?.length ?? 1) - 1, confidence: 0.6 };
    return { name: question.name, type: "predicate", probability: 0.8 };
  });
}

/** The answer when the typed script is empty. */
export function defaultTypedReply(request: TypedRequest): TypedReplyValue {
  switch (request.api) {
    case "system-one":
      return { body: { answers: systemOneAnswers(request.body?.questions), usage: { input_tokens: 1000, output_tokens: 0 } } };
    case "decisions":
      return { body: { answers: decisionsAnswers(request.body?.questions), usage: { input_tokens: 1000, output_tokens: 0 } } };
    case "images":
      return {
        body: {
          id: "gen-fake-1",
          choices: [{ message: { role: "assistant", content: "A tiny picture.", images: [{ type: "image_url", image_url: { url: `data:image/png;base64,${TINY_PNG}` } }] } }],
          usage: { prompt_tokens: 100, completion_tokens: 1000 },
        },
      };
  }
}
