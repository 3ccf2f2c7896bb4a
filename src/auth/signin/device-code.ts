/**
 * The polling half of the OAuth device authorization grant (RFC 8628): after the user
 * was shown a code, ask the token endpoint until they have entered it. Before each poll
 * wait the `interval` the server gave (5 s when it gave none, section 3.2);
 * `authorization_pending` means keep going, `slow_down` means add 5 s to the interval
 * for this and every later poll (or take the larger interval the server names, as
 * GitHub does); anything else ends the flow. The code's `expires_in` bounds it all.
 */
import { pollSecondMs } from "../test-endpoints.ts";

export interface DeviceGrant {
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  /** Seconds between polls. */
  interval: number;
  /** Seconds until the code expires. */
  expiresIn: number;
}

/** What one poll of the token endpoint found. */
export type PollOutcome<T> = { done: T } | { pending: true } | { slowDown: true; interval?: number };

const DEFAULT_INTERVAL = 5;
const SLOW_DOWN_STEP = 5;

/** A device authorization response, checked; throws naming what is wrong with it. */
export function parseDeviceGrant(body: unknown, service: string): DeviceGrant {
  const value = (body ?? {}) as Record<string, unknown>;
  const { device_code, user_code, verification_uri, interval, expires_in } = value;
  if (typeof device_code !== "string" || typeof user_code !== "string" || typeof verification_uri !== "string") {
    throw new Error(`${service} sent a device code response without device_code, user_code or verification_uri.`);
  }
  // Shown to the user to open: only a web address, never something a shell or opener would run.
  if (!/^https?:\/\//i.test(verification_uri) || !URL.canParse(verification_uri)) {
    throw new Error(`${service} sent a verification_uri that is not a web address.`);
  }
  return {
    deviceCode: device_code,
    userCode: user_code,
    verificationUri: verification_uri,
    interval: typeof interval === "number" && interval > 0 ? interval : DEFAULT_INTERVAL,
    expiresIn: typeof expires_in === "number" && expires_in > 0 ? expires_in : 900,
  };
}

/** Polls until `poll` is done; throws when the code expires or the signal aborts. */
export async function pollDeviceGrant<T>(grant: DeviceGrant, poll: () => Promise<PollOutcome<T>>, signal: AbortSignal): Promise<T> {
  const second = pollSecondMs();
  const deadline = Date.now() + grant.expiresIn * second;
  let interval = grant.interval;
  while (true) {
    await sleep(interval * second, signal);
    if (Date.now() > deadline) throw new Error("The code expired before it was entered. Start the sign-in again.");
    const outcome = await poll();
    if ("done" in outcome) return outcome.done;
    if ("slowDown" in outcome) interval = Math.max(interval + SLOW_DOWN_STEP, outcome.interval ?? 0);
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Error("Sign-in cancelled."));
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new Error("Sign-in cancelled."));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}
