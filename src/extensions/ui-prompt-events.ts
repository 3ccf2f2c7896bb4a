/**
 * ui_prompt_start / ui_prompt_end around every blocking ctx.ui dialog (select,
 * confirm, input, editor, custom), whichever mode supplies the dialogs: the
 * RPC bridge, the terminal UI, or print/json defaults. One wrapper over the
 * mode's ExtensionUIContext, so no mode has to remember to announce them.
 *
 * The events describe a waiting state, as pi's do: ui_prompt_start when the
 * first dialog opens (it is sent first, then announced), ui_prompt_end, with
 * the same kind and title, once no dialog is open any more; dialogs opened
 * meanwhile join the wait. A dialog opened by a ui_prompt_* handler itself is
 * not announced, so such a handler cannot start an endless chain.
 */
import type { UIPromptKind } from "./events.ts";
import type { ExtensionUIContext } from "./ui-types.ts";

type Announce = (type: "ui_prompt_start" | "ui_prompt_end", kind: UIPromptKind, title: string | undefined) => Promise<void>;

const DIALOGS: Record<string, UIPromptKind> = { select: "select", confirm: "confirm", input: "input", editor: "editor", custom: "custom" };

export function withPromptEvents(ui: ExtensionUIContext, announce: Announce): ExtensionUIContext {
  let open = 0;
  let waitingOn: { kind: UIPromptKind; title: string | undefined } | undefined;
  let announcing = 0;
  const tell = async (type: "ui_prompt_start" | "ui_prompt_end", prompt: { kind: UIPromptKind; title: string | undefined }) => {
    announcing++;
    try {
      await announce(type, prompt.kind, prompt.title);
    } finally {
      announcing--;
    }
  };
  const wrap = (kind: UIPromptKind, openDialog: (...args: any[]) => Promise<unknown>) =>
    async (...args: any[]) => {
      const pending = openDialog(...args);
      if (announcing > 0) return pending;
      open++;
      if (open === 1) {
        // custom() takes a component factory, not a title.
        waitingOn = { kind, title: kind !== "custom" && typeof args[0] === "string" ? args[0] : undefined };
        await tell("ui_prompt_start", waitingOn);
      }
      try {
        return await pending;
      } finally {
        open--;
        const ended = open === 0 ? waitingOn : undefined;
        if (ended) {
          waitingOn = undefined;
          await tell("ui_prompt_end", ended);
        }
      }
    };
  return new Proxy(ui, {
    get(target, property) {
      // The mode's own object is `this` for its getters and methods (they may use private state).
      const value = Reflect.get(target, property);
      const kind = typeof property === "string" ? DIALOGS[property] : undefined;
      if (kind && typeof value === "function") return wrap(kind, value.bind(target));
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
