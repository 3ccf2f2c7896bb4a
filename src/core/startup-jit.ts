/**
 * The executable starts with JavaScriptCore's tier-up thresholds scaled up
 * (`--compile-jit-policy`, scripts/build-flags.ts). Start-up runs a lot of code once;
 * the few spots that ran often enough to be compiled by the optimizing JIT cost ~2.5 MiB
 * of the cold start's peak memory (the compiler's own code and its work) and saved no
 * time. Normal thresholds come back when the first agent run starts (streaming and
 * tool loops are code worth optimizing) or a second after start, whichever is first.
 * The policy is per thread: workers run with normal thresholds from the start.
 */

/** Long enough for any start-up, short enough that an idle process soon runs as usual. */
const STARTUP_MS = 1000;

let restored = false;

/** Normal JIT thresholds from now on; later calls do nothing. */
export function endStartupJitPolicy(): void {
  if (restored) return;
  restored = true;
  // Bun before 1.4.5 has no such call, and a run from source never raised the thresholds.
  (Bun.unsafe as { setJITPolicy?: (scale: number) => void }).setJITPolicy?.(1);
}

/** Restores normal thresholds once start-up is surely over, if nothing did it earlier. */
export function endStartupJitPolicyLater(): void {
  setTimeout(endStartupJitPolicy, STARTUP_MS).unref();
}
