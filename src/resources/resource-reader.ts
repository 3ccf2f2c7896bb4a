/**
 * Reading skills or prompt templates from their places, in order: each file
 * once, only where its place accepts it, and the first of a name wins — the
 * later one is reported, as pi does.
 */
import type { ResourcePlace } from "./resource-places.ts";

/** What a loader needs to read the places in order. */
export interface PlaceReader<T extends { name: string; filePath: string }> {
  /** The candidate files of one place (warnings for what cannot be read). */
  filesOf(place: ResourcePlace, warnings: string[]): string[];
  /** One file as a resource, or undefined (with a warning) when it is not a valid one. */
  parse(file: string, place: ResourcePlace, warnings: string[]): T | undefined;
  /** How a resource is named in a clash warning: `skill "x"`, `prompt template "/x"`. */
  describe(item: T): string;
}

/**
 * Every place's files in order, each file once and only if its place accepts it;
 * on a name clash the first one found wins and the later one is reported.
 */
export function loadFirstByName<T extends { name: string; filePath: string }>(places: ResourcePlace[], reader: PlaceReader<T>): { items: T[]; warnings: string[] } {
  const warnings: string[] = [];
  const byName = new Map<string, T>();
  const seenFiles = new Set<string>();
  for (const place of places) {
    for (const file of reader.filesOf(place, warnings)) {
      if (seenFiles.has(file) || place.accepts?.(file) === false) continue;
      seenFiles.add(file);
      const item = reader.parse(file, place, warnings);
      if (!item) continue;
      const winner = byName.get(item.name);
      if (winner) warnings.push(`${reader.describe(item)} at ${file} is ignored: ${winner.filePath} has the same name and comes first`);
      else byName.set(item.name, item);
    }
  }
  return { items: [...byName.values()], warnings };
}
