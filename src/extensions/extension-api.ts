/**
 * The `pi` object each extension's factory receives. Registration calls
 * (on, registerTool, registerCommand, …) record into the extension and work at
 * any time; a tool registered after startup reaches the session at once.
 * Session actions (sendMessage, setModel, …) need the session and say so
 * clearly when called from the factory, before it exists.
 */
import { execCommand } from "./exec.ts";
import type { ExtensionHost } from "./host.ts";
import type { ExtensionRunner, LoadedExtension } from "./runner.ts";
import { registerExtensionTool, TOOL_EXPOSURES } from "./tool-adapter.ts";
import type { EventBus, ExtensionAPI, ExtensionContext, ProviderConfig } from "./types.ts";
import type { VirtualModelDefinition } from "./virtual-models.ts";
import type { McpRegistrations } from "./mcp-registrations.ts";

/** What the API needs beyond the extension itself; shared by every extension of a runtime. */
export interface ExtensionRuntime {
  runner: ExtensionRunner;
  cwd: string;
  events: EventBus;
  /** Throws when this runtime was replaced (new/switched/forked session, reload). */
  assertLive(): void;
  /** The context a tool's execute receives. */
  toolContext(): ExtensionContext;
  registerProvider(extension: LoadedExtension, name: string, config: ProviderConfig): void;
  unregisterProvider(name: string): void;
  registerVirtualModel(extension: LoadedExtension, definition: VirtualModelDefinition): void;
  unregisterVirtualModel(extension: LoadedExtension, provider: string, id: string): void;
  /** Servers extensions register (pi.registerMcpServer), shared by the runtime's extensions. */
  mcpServers: McpRegistrations;
}

export function createExtensionAPI(extension: LoadedExtension, runtime: ExtensionRuntime): ExtensionAPI {
  const host = (method: string): ExtensionHost => {
    runtime.assertLive();
    const bound = runtime.runner.boundHost;
    if (!bound) {
      throw new Error(`pi.${method}() is not available while extensions load; call it from a handler such as session_start, or from a command or tool.`);
    }
    return bound;
  };

  return {
    on(event, handler) {
      if (typeof handler !== "function") throw new Error(`pi.on("${String(event)}") needs a handler function`);
      const list = extension.handlers.get(event) ?? [];
      const registered = handler as (event: unknown, ctx: unknown) => unknown;
      list.push(registered);
      extension.handlers.set(event, list);
      // pi 0.87.1 returns an unsubscribe function; calling it twice is harmless.
      return () => {
        const current = extension.handlers.get(event);
        const index = current?.indexOf(registered) ?? -1;
        if (index !== -1) current!.splice(index, 1);
      };
    },
    registerTool(tool) {
      if (!tool || typeof tool.name !== "string" || !tool.name) throw new Error("pi.registerTool() needs a tool with a name");
      // Providers reject other names, which would fail every request rather than this registration.
      if (!/^[a-zA-Z0-9_-]{1,64}$/.test(tool.name)) {
        throw new Error(`Tool name "${tool.name}" is not allowed: use 1-64 letters, digits, "_" or "-"`);
      }
      if (typeof tool.execute !== "function") throw new Error(`Tool "${tool.name}" has no execute function`);
      if (tool.exposure !== undefined && !TOOL_EXPOSURES.includes(tool.exposure)) {
        throw new Error(`Tool "${tool.name}" has exposure "${tool.exposure}": use one of ${TOOL_EXPOSURES.join(", ")}`);
      }
      extension.tools.set(tool.name, tool);
      // Before the session exists the tool waits in the extension; the system registers it when binding.
      const bound = runtime.runner.boundHost;
      if (bound) registerExtensionTool(bound, extension, tool, runtime.toolContext);
    },
    registerCommand(name, options) {
      const clean = String(name).replace(/^\//, "");
      if (!clean || /\s/.test(clean)) throw new Error(`Command name "${name}" must be one word without spaces`);
      if (typeof options?.handler !== "function") throw new Error(`Command "${clean}" has no handler function`);
      extension.commands.set(clean, options);
    },
    registerShortcut(shortcut, options) {
      extension.shortcuts.set(shortcut, options);
    },
    registerFlag(name, options) {
      extension.flags.set(String(name).replace(/^--/, ""), { ...options, type: options?.type === "string" ? "string" : "boolean" });
    },
    getFlag: (name) => runtime.runner.getFlag(String(name).replace(/^--/, "")),
    registerMessageRenderer(customType, renderer) {
      extension.messageRenderers.set(customType, renderer);
    },
    registerEntryRenderer(customType, renderer) {
      if (typeof renderer !== "function") throw new Error(`The entry renderer for "${customType}" is not a function`);
      extension.entryRenderers.set(String(customType), renderer as (...args: any[]) => unknown);
    },
    registerMarkdownTransformer(transform, options) {
      if (typeof transform !== "function") throw new Error("pi.registerMarkdownTransformer() needs a function (markdown, context) => markdown");
      const messageTypes = Array.isArray(options?.messageTypes) ? options.messageTypes.map(String) : ["user", "assistant", "assistant-thinking"];
      // One per extension: registering again replaces it (pi 1.x).
      extension.markdownTransformer = { transform: transform as (markdown: string, context: any) => unknown, messageTypes };
    },
    registerToolRenderer(resolver) {
      if (typeof resolver !== "function") throw new Error("pi.registerToolRenderer() needs a resolver function (toolName, next) => renderers");
      extension.toolRendererResolvers.push(resolver as (toolName: string, next: () => unknown) => unknown);
    },
    sendMessage(message, options) {
      void host("sendMessage")
        .sendMessage(message, options)
        .catch((error) => runtime.runner.report(extension.path, "sendMessage", error));
    },
    sendUserMessage(content, options) {
      void host("sendUserMessage")
        .sendUserMessage(content, options)
        .catch((error) => runtime.runner.report(extension.path, "sendUserMessage", error));
    },
    appendEntry: (customType, data) => host("appendEntry").appendEntry(customType, data),
    setSessionName: (name) => host("setSessionName").setSessionName(name),
    getSessionName: () => host("getSessionName").getSessionName(),
    setLabel: (entryId, label) => host("setLabel").setLabel(entryId, label),
    exec: (command, args, options) => execCommand(runtime.cwd, command, args, options),
    getActiveTools: () => host("getActiveTools").getActiveTools(),
    getAllTools: () => host("getAllTools").getAllTools(),
    setActiveTools: (names) => host("setActiveTools").setActiveTools(names),
    getCommands: () => host("getCommands").getCommands(),
    setModel: (model) => host("setModel").setModel(model),
    getThinkingLevel: () => host("getThinkingLevel").getThinkingLevel(),
    setThinkingLevel: (level) => host("setThinkingLevel").setThinkingLevel(level),
    getSettings: () => host("getSettings").getSettings(),
    registerProvider: (name, config) => runtime.registerProvider(extension, name, config),
    unregisterProvider: (name) => runtime.unregisterProvider(name),
    registerVirtualModel: (definition) => runtime.registerVirtualModel(extension, definition as VirtualModelDefinition),
    unregisterVirtualModel: (provider, id) => runtime.unregisterVirtualModel(extension, String(provider), String(id)),
    registerMcpServer: (name, config) => {
      runtime.assertLive();
      runtime.mcpServers.register(extension.path, name, config);
    },
    unregisterMcpServer: (name) => {
      runtime.assertLive();
      runtime.mcpServers.unregister(extension.path, String(name));
    },
    getMcpServers: () => runtime.mcpServers.list(),
    get events() {
      return runtime.events;
    },
  };
}
