/**
 * What a before_agent_start handler did to `event.systemPromptOptions` (pi 1.x: "the
 * collections are mutable"), read as decisions the bindings then carry out: a changed
 * `selectedTools` is a new set of active tools, rules added to `promptGuidelines` are
 * rules for this run, and `sections` are XML-wrapped blocks at the end of the prompt.
 * Pure: the options offered and the options after the handlers in, decisions out.
 */
import type { BuildSystemPromptOptions } from "../extensions/types.ts";

/** The collections as offered, copied before any handler runs. */
export interface OfferedOptions {
  tools: string[];
  guidelines: string[];
}

export function offeredOf(options: BuildSystemPromptOptions): OfferedOptions {
  return { tools: [...(options.selectedTools ?? [])], guidelines: [...(options.promptGuidelines ?? [])] };
}

export interface PromptOptionEdits {
  /** The active tools to set; absent when the selection is unchanged. */
  selectedTools?: string[];
  /** Rules a handler added, for this run's prompt. */
  addedGuidelines: string[];
}

export function editsOf(offered: OfferedOptions, options: BuildSystemPromptOptions | undefined): PromptOptionEdits {
  const selected = Array.isArray(options?.selectedTools) ? options.selectedTools.map(String) : offered.tools;
  const changed = selected.length !== offered.tools.length || selected.some((name, index) => name !== offered.tools[index]);
  const guidelines = Array.isArray(options?.promptGuidelines) ? options.promptGuidelines.map(String) : offered.guidelines;
  return {
    ...(changed ? { selectedTools: selected } : {}),
    addedGuidelines: guidelines.filter((rule) => !offered.guidelines.includes(rule)),
  };
}

/** A section's tag: a name XML allows, and not pi's reserved `preamble`. */
const SECTION_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;

/**
 * The prompt with the custom sections a handler set, each as `<name>\ncontent\n</name>`
 * after the rest, in the order set. Empty contents and names that are no XML tag are left out.
 */
export function withPromptSections(systemPrompt: string, sections: Record<string, unknown> | undefined): string {
  if (!sections || typeof sections !== "object") return systemPrompt;
  const blocks = Object.entries(sections)
    .filter(([name, content]) => SECTION_NAME.test(name) && name !== "preamble" && typeof content === "string" && content !== "")
    .map(([name, content]) => `<${name}>\n${content}\n</${name}>`);
  return blocks.length === 0 ? systemPrompt : `${systemPrompt}\n\n${blocks.join("\n\n")}`;
}
