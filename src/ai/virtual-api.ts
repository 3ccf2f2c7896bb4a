/**
 * How a virtual model (pi 1.x: a model whose extension routes each request to a physical
 * one, extensions/virtual-models.ts) is told from a physical one: its api is
 * `virtual:<provider>`, a name no physical model has. Here, below everything, so the
 * agent's core can ask without loading the extension system.
 */
import type { Model } from "./types.ts";

/** The api of a provider's virtual models: never one a physical model has. */
export const VIRTUAL_API_PREFIX = "virtual:";

export function isVirtualModel(model: Pick<Model, "api"> | undefined): boolean {
  return typeof model?.api === "string" && model.api.startsWith(VIRTUAL_API_PREFIX);
}
