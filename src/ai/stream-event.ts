/**
 * Hands one parsed provider stream event to whoever asked for them (extensions'
 * `provider_stream_event`). A stream has thousands of events and most sessions have no
 * listener: the hook then returns nothing, and no promise is made or awaited per event.
 */
import type { Model } from "./types.ts";

interface StreamEventHook {
  onStreamEvent?: (data: unknown, model: Model) => void | Promise<void>;
}

export function notifyStreamEvent(options: StreamEventHook | undefined, data: unknown, model: Model): void | Promise<void> {
  return options?.onStreamEvent?.(data, model);
}
