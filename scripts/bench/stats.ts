/** Small statistics and formatting helpers for the benchmark report. */

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function formatMs(ms: number): string {
  if (!Number.isFinite(ms)) return "n/a";
  const size = Math.abs(ms);
  if (size >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
  if (size >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  return `${ms.toFixed(size < 100 ? 1 : 0)} ms`;
}

export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes)) return "n/a";
  if (bytes >= 1024 * 1024) return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

/** "0.04×" style: how xcsh's value compares with the reference's (lower is better). */
export function formatRatio(ours: number, theirs: number): string {
  // A difference can be negative (noise, or a start-up that got faster); its ratio means nothing.
  if (!Number.isFinite(ours) || !Number.isFinite(theirs) || theirs <= 0 || ours < 0) return "n/a";
  const ratio = ours / theirs;
  return `${ratio < 0.1 ? ratio.toFixed(3) : ratio.toFixed(2)}×`;
}
