/**
 * Waiting for something, but not longer than a while — with the timer cleared once
 * the thing happens, so a finished wait never keeps xcsh's process alive (a plain
 * race against `Bun.sleep` leaves the sleep pending for its whole length).
 */
export async function within<T>(promise: Promise<T>, ms: number): Promise<{ done: true; value: T } | { done: false }> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), Math.max(0, ms));
  });
  try {
    return await Promise.race([promise.then((value) => ({ done: true as const, value })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
