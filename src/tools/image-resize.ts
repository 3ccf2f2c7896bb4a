/**
 * The one image resizer: every path that hands an image to a model (read, @file and
 * prompt attachments, tool results, the extension helper `resizeImage`) scales it here,
 * on Bun's built-in image pipeline (`Bun.Image`: libjpeg-turbo, libspng, libwebp inside
 * Bun, no native module or wasm). An image that already fits is returned as it is; one
 * that does not is scaled to fit and re-encoded as the smaller of PNG and JPEG, then with
 * lower JPEG quality and smaller sizes until it fits the byte limit. The defaults are
 * pi 1.6.0's: 2000×2000 px, 4.5 MiB of base64, JPEG quality 80.
 */

export interface ImageResizeOptions {
  maxWidth?: number;
  maxHeight?: number;
  /** Limit of the base64-encoded data, in bytes. */
  maxBytes?: number;
  jpegQuality?: number;
}

export interface ResizedImage {
  /** Base64 of the image bytes. */
  data: string;
  mimeType: string;
  originalWidth: number;
  originalHeight: number;
  width: number;
  height: number;
  wasResized: boolean;
}

const DEFAULTS: Required<ImageResizeOptions> = { maxWidth: 2000, maxHeight: 2000, maxBytes: 4.5 * 1024 * 1024, jpegQuality: 80 };
const FALLBACK_QUALITIES = [70, 55, 40, 25];
const SHRINK_STEP = 0.75;

const base64Size = (bytes: number) => Math.ceil(bytes / 3) * 4;
const toBase64 = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64");

function checkOptions(options: ImageResizeOptions | undefined): Required<ImageResizeOptions> {
  // An option left undefined (a models.json profile that sets only some) keeps its default.
  const given = Object.entries(options ?? {}).filter(([, value]) => value !== undefined);
  const merged = { ...DEFAULTS, ...Object.fromEntries(given) } as Required<ImageResizeOptions>;
  for (const [name, value] of Object.entries(merged)) {
    if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) throw new TypeError(`resizeImage: ${name} must be a positive number`);
  }
  return merged;
}

async function encode(source: Uint8Array, width: number, height: number, format: "png" | "jpeg", quality: number) {
  const pipeline = new Bun.Image(source).resize(width, height, { fit: "fill" });
  const bytes = await (format === "png" ? pipeline.png() : pipeline.jpeg({ quality })).bytes();
  return { bytes, mimeType: `image/${format}` };
}

type Encoded = Awaited<ReturnType<typeof encode>>;

function smallestFitting(candidates: Encoded[], maxBytes: number): Encoded | undefined {
  const fitting = candidates.filter((candidate) => base64Size(candidate.bytes.length) < maxBytes);
  return fitting.length === 0 ? undefined : fitting.reduce((smallest, candidate) => (candidate.bytes.length < smallest.bytes.length ? candidate : smallest));
}

/** The first JPEG below the asked quality, best quality first, that fits. */
async function lowerQualityFitting(source: Uint8Array, width: number, height: number, limits: Required<ImageResizeOptions>): Promise<Encoded | undefined> {
  for (const quality of FALLBACK_QUALITIES) {
    if (quality >= limits.jpegQuality) continue;
    const candidate = await encode(source, width, height, "jpeg", quality);
    if (base64Size(candidate.bytes.length) < limits.maxBytes) return candidate;
  }
  return undefined;
}

/** The image scaled down (never up) to fit the limits, or null when it cannot be read or made small enough. */
export async function resizeImage(inputBytes: Uint8Array, mimeType: string, options?: ImageResizeOptions): Promise<ResizedImage | null> {
  if (!(inputBytes instanceof Uint8Array)) throw new TypeError("resizeImage: inputBytes must be a Uint8Array");
  const limits = checkOptions(options);
  let original: { width: number; height: number };
  try {
    original = await new Bun.Image(inputBytes).metadata();
  } catch {
    return null;
  }
  const unchanged = { originalWidth: original.width, originalHeight: original.height };
  if (original.width <= limits.maxWidth && original.height <= limits.maxHeight && base64Size(inputBytes.length) < limits.maxBytes) {
    return { data: toBase64(inputBytes), mimeType, ...unchanged, width: original.width, height: original.height, wasResized: false };
  }

  const scale = Math.min(1, limits.maxWidth / original.width, limits.maxHeight / original.height);
  let width = Math.max(1, Math.round(original.width * scale));
  let height = Math.max(1, Math.round(original.height * scale));
  try {
    while (true) {
      // The smaller of PNG and JPEG at the asked quality; lower qualities only when neither fits
      // (each encoding of a large image costs a good part of a second).
      const first = [await encode(inputBytes, width, height, "png", 0), await encode(inputBytes, width, height, "jpeg", limits.jpegQuality)];
      const best = smallestFitting(first, limits.maxBytes) ?? (await lowerQualityFitting(inputBytes, width, height, limits));
      if (best) return { data: toBase64(best.bytes), mimeType: best.mimeType, ...unchanged, width, height, wasResized: true };
      if (width === 1 && height === 1) return null;
      width = Math.max(1, Math.floor(width * SHRINK_STEP));
      height = Math.max(1, Math.floor(height * SHRINK_STEP));
    }
  } catch {
    return null;
  }
}

/** A note for the model on how coordinates in a resized image map to the original; undefined when it was not resized. */
export function formatDimensionNote(result: ResizedImage): string | undefined {
  if (!result?.wasResized) return undefined;
  const factor = (result.originalWidth / result.width).toFixed(2);
  return `[Image scaled from ${result.originalWidth}x${result.originalHeight} to ${result.width}x${result.height} px: multiply coordinates in it by ${factor} for the original.]`;
}
