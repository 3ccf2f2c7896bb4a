/**
 * `pi.events`: a channel-keyed bus the extensions of one process share, so one
 * extension can tell another something without either importing the other.
 * A listener that throws is reported and the others still run.
 */
import type { EventBus } from "./types.ts";

export function createEventBus(onError: (channel: string, error: unknown) => void): EventBus {
  const listeners = new Map<string, Set<(data: unknown) => void>>();
  return {
    on(channel, handler) {
      let set = listeners.get(channel);
      if (!set) listeners.set(channel, (set = new Set()));
      set.add(handler);
      return () => void set.delete(handler);
    },
    emit(channel, data) {
      for (const handler of [...(listeners.get(channel) ?? [])]) {
        try {
          const result = handler(data) as unknown;
          if (result instanceof Promise) result.catch((error) => onError(channel, error));
        } catch (error) {
          onError(channel, error);
        }
      }
    },
  };
}
