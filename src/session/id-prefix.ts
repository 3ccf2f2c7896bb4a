/**
 * The shortest start of each session id that names it alone. Session ids are time
 * ordered (UUIDv7): sessions started in the same minute share their first 8
 * characters, so a fixed 8-character prefix is often ambiguous. Lists show these
 * prefixes and `--session <prefix>` accepts them.
 */

/** For each id, its shortest prefix (at least `min` characters) that no other id starts with. */
export function uniqueIdPrefixes(ids: readonly string[], min = 8): Map<string, string> {
  const sorted = [...new Set(ids)].sort();
  const prefixes = new Map<string, string>();
  sorted.forEach((id, index) => {
    // In sorted order, the ids sharing the longest start with this one are its neighbours.
    const shared = Math.max(commonLength(id, sorted[index - 1]), commonLength(id, sorted[index + 1]));
    prefixes.set(id, id.slice(0, Math.min(id.length, Math.max(min, shared + 1))));
  });
  return prefixes;
}

function commonLength(a: string, b: string | undefined): number {
  if (b === undefined) return 0;
  let length = 0;
  while (length < a.length && a[length] === b[length]) length++;
  return length;
}
