/**
 * Start-up is lazy: provider SDKs load on first use. With XCSH_TRACE_LOAD=1 each
 * heavy module reports to stderr when it is evaluated, so anyone (and the tests)
 * can see what a command really loaded.
 */
export function traceModuleLoad(name: string): void {
  if (process.env.XCSH_TRACE_LOAD) process.stderr.write(`xcsh: loaded ${name}\n`);
}
