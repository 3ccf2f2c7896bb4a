import type { AssistantMessage, AssistantMessageEvent } from "./types.ts";

/**
 * A push-based async iterable: producers `push` events, one consumer iterates them.
 * Events pushed before anyone iterates are buffered, so a provider can start
 * producing synchronously. `result()` resolves with the value extracted from the
 * completing event (or given to `end`).
 */
export class EventStream<T, R = T> implements AsyncIterable<T> {
  private readonly queue: T[] = [];
  private waiting: ((value: IteratorResult<T>) => void) | null = null;
  private finished = false;
  private resolveResult!: (value: R) => void;
  private readonly finalResult: Promise<R>;

  constructor(
    private readonly isComplete: (event: T) => boolean,
    private readonly extractResult: (event: T) => R,
  ) {
    this.finalResult = new Promise<R>((resolve) => {
      this.resolveResult = resolve;
    });
  }

  push(event: T): void {
    if (this.finished) return;
    if (this.isComplete(event)) {
      this.finished = true;
      this.resolveResult(this.extractResult(event));
    }
    const waiter = this.waiting;
    if (waiter) {
      this.waiting = null;
      waiter({ value: event, done: false });
    } else {
      this.queue.push(event);
    }
  }

  /** Ends the stream without a completing event (e.g. an extension's custom stream). */
  end(result?: R): void {
    if (!this.finished) {
      this.finished = true;
      if (result !== undefined) this.resolveResult(result);
    }
    const waiter = this.waiting;
    if (waiter) {
      this.waiting = null;
      waiter({ value: undefined, done: true });
    }
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    while (true) {
      if (this.queue.length > 0) {
        yield this.queue.shift()!;
        continue;
      }
      if (this.finished) return;
      const next = await new Promise<IteratorResult<T>>((resolve) => {
        this.waiting = resolve;
      });
      if (next.done) return;
      yield next.value;
    }
  }

  result(): Promise<R> {
    return this.finalResult;
  }
}

export class AssistantMessageEventStream extends EventStream<AssistantMessageEvent, AssistantMessage> {
  constructor() {
    super(
      (event) => event.type === "done" || event.type === "error",
      (event) => {
        if (event.type === "done") return event.message;
        if (event.type === "error") return event.error;
        throw new Error(`not a final event: ${event.type}`);
      },
    );
  }
}

/** Factory for extensions that implement their own provider stream. */
export function createAssistantMessageEventStream(): AssistantMessageEventStream {
  return new AssistantMessageEventStream();
}
