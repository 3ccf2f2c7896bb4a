/**
 * The `ctx` handlers receive (ExtensionContext) and the richer one commands get
 * (ExtensionCommandContext). Every field reads through to the host at the time
 * of use, so a context handed out at startup still reports the current model,
 * signal and session — and one whose runtime was replaced throws instead of
 * acting on the old session (seed 003, "session replacement lifecycle").
 */
import type { ExtensionHost } from "./host.ts";
import type {
  ExtensionCommandContext,
  ExtensionContext,
  ForkOptions,
  NavigateTreeOptions,
  NewSessionOptions,
  ReplacedSessionContext,
  ReplacementOptions,
} from "./types.ts";

/** A check that the runtime this context belongs to is still the live one. */
export type LivenessCheck = () => void;

export function createExtensionContext(host: ExtensionHost, assertLive: LivenessCheck): ExtensionContext {
  const live = <T>(read: () => T): T => {
    assertLive();
    return read();
  };
  return {
    get ui() {
      return host.ui;
    },
    get mode() {
      return host.mode;
    },
    get hasUI() {
      return host.hasUI;
    },
    get cwd() {
      return host.cwd;
    },
    isProjectTrusted: () => host.isProjectTrusted(),
    get sessionManager() {
      return live(() => host.sessionManager());
    },
    get modelRegistry() {
      return host.modelRegistry;
    },
    get model() {
      return live(() => host.model());
    },
    get thinkingLevel() {
      return live(() => host.getThinkingLevel());
    },
    get scopedModels() {
      return live(() => host.scopedModels());
    },
    get signal() {
      return host.signal();
    },
    isIdle: () => host.isIdle(),
    abort: () => live(() => host.abort()),
    hasPendingMessages: () => host.hasPendingMessages(),
    shutdown: () => host.shutdown(),
    getContextUsage: () => live(() => host.getContextUsage()),
    compact: (options) => live(() => host.compact(options)),
    getSystemPrompt: () => host.getSystemPrompt(),
  };
}

export function createCommandContext(host: ExtensionHost, assertLive: LivenessCheck): ExtensionCommandContext {
  const base = createExtensionContext(host, assertLive);
  const guarded = <A extends unknown[], R>(action: (...args: A) => R) => (...args: A): R => {
    assertLive();
    return action(...args);
  };
  return Object.defineProperties(base, {
    getSystemPromptOptions: { value: guarded(() => host.getSystemPromptOptions()) },
    waitForIdle: { value: () => host.waitForIdle() },
    newSession: { value: guarded((options?: NewSessionOptions) => host.newSession(options)) },
    fork: { value: guarded((entryId: string, options?: ForkOptions) => host.fork(entryId, options)) },
    navigateTree: { value: guarded((targetId: string, options?: NavigateTreeOptions) => host.navigateTree(targetId, options)) },
    switchSession: { value: guarded((path: string, options?: ReplacementOptions) => host.switchSession(path, options)) },
    reload: { value: guarded(() => host.reload()) },
  }) as ExtensionCommandContext;
}

/** The context `withSession` callbacks get: the replacement session's, with message helpers bound to it. */
export function createReplacedSessionContext(host: ExtensionHost, assertLive: LivenessCheck): ReplacedSessionContext {
  const context = createCommandContext(host, assertLive);
  return Object.defineProperties(context, {
    sendMessage: { value: (message: never, options?: never) => (assertLive(), host.sendMessage(message, options)) },
    sendUserMessage: { value: (content: never, options?: never) => (assertLive(), host.sendUserMessage(content, options)) },
  }) as ReplacedSessionContext;
}
