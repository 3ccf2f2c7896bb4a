/**
 * How images are fitted for the model in this session: settings.json's
 * `images.autoResize` (default true) and the current model's
 * `inputLimits.images.resize` from models.json (pi 1.6.0's per-model profile). Read at
 * each use, so a /model switch or a settings reload applies to the next image; images
 * already stored keep the size they were sent at.
 */
import type { Model } from "../ai/types.ts";
import { autoResizeSetting, type ImagePolicy } from "../tools/image-fit.ts";

export function imagePolicy(settings: Readonly<Record<string, unknown>>, model: Pick<Model, "inputLimits"> | undefined): ImagePolicy {
  const resize = model?.inputLimits?.images?.resize;
  return { autoResize: autoResizeSetting(settings), ...(resize ? { resize } : {}) };
}
