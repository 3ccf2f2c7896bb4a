/**
 * `searchTools()`: tools ranked by Okapi BM25 over their names and
 * descriptions (and an MCP tool's server description), optionally within one
 * namespace (an MCP server). Small and exact enough for a few hundred tools; runs in the
 * script's worker, so a search costs no round trip to the agent.
 */
import type { CatalogEntry } from "./protocol.ts";

const K1 = 1.2;
const B = 0.75;

function terms(text: string): string[] {
  // Names split on their separators too: mcp__dev_radius__search → mcp, dev, radius, search.
  return text.toLowerCase().split(/[^a-z0-9]+/).filter((term) => term.length > 0);
}

/**
 * Whether `name` names the entry's group: its name or an alias, compared as script
 * identifiers (`my-docs` and `my_docs` alike), so `files` finds the server `mcp__files`.
 */
export function inNamespace(entry: CatalogEntry, name: string): boolean {
  if (entry.namespace === undefined) return false;
  const wanted = identifierForm(name);
  return [entry.namespace, ...(entry.namespaceAliases ?? [])].some((candidate) => identifierForm(candidate) === wanted);
}

const identifierForm = (name: string) => name.replace(/[^A-Za-z0-9_$]/g, "_");

export function searchCatalog(all: readonly CatalogEntry[], query: string, limit = 8, namespace?: string): CatalogEntry[] {
  const catalog = namespace === undefined ? all : all.filter((entry) => inNamespace(entry, namespace));
  const wanted = [...new Set(terms(query))];
  if (wanted.length === 0) return catalog.slice(0, limit);
  // The name counts twice: a tool named for the topic beats one that mentions it.
  // An MCP tool is found by what its server offers as well (the server's `description`).
  const documents = catalog.map((entry) => terms(`${entry.name} ${entry.name} ${entry.description} ${entry.namespaceDescription ?? ""}`));
  const averageLength = documents.reduce((sum, document) => sum + document.length, 0) / Math.max(documents.length, 1);
  const documentFrequency = new Map<string, number>();
  for (const term of wanted) documentFrequency.set(term, documents.filter((document) => document.includes(term)).length);
  const scored = documents.map((document, index) => {
    let score = 0;
    for (const term of wanted) {
      const frequency = document.filter((word) => word === term).length;
      if (frequency === 0) continue;
      const containing = documentFrequency.get(term) ?? 0;
      const idf = Math.log(1 + (documents.length - containing + 0.5) / (containing + 0.5));
      score += (idf * frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * document.length) / averageLength));
    }
    return { entry: catalog[index], score };
  });
  return scored
    .filter((item) => item.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((item) => item.entry);
}
