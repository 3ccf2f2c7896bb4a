/**
 * `xcsh models update`: fetches models.dev's catalog and writes it, as catalog rows, to
 * models-catalog.json in the agent dir, where the next run's first model look-up reads it
 * over the built-in catalog (src/ai/catalog/refreshed.ts). Only on request: xcsh never
 * fetches it by itself. A download that fails, times out or is not a models.dev catalog
 * leaves the old file as it was and says why (exit 1); the new file replaces the old one
 * atomically.
 *
 * XCSH_MODELS_DEV_URL (or --url) points it at another address: a mirror, or a test's
 * local server.
 */
import { join } from "node:path";
import { rowsFromModelsDev } from "../ai/catalog/models-dev.ts";
import { checkRefreshedCatalog, REFRESHED_CATALOG_FILE, REFRESHED_CATALOG_VERSION, type RefreshedCatalog } from "../ai/catalog/refreshed.ts";
import { getAgentDir } from "../config/paths.ts";
import { writePrivateFileAtomically } from "../config/private-files.ts";

export const MODELS_DEV_URL = "https://models.dev/api.json";
export const MODELS_DEV_URL_ENV = "XCSH_MODELS_DEV_URL";
const TIMEOUT_MS = 30_000;

const USAGE = `Usage: xcsh models update [--url <url>]

Fetches the model catalog from models.dev (${MODELS_DEV_URL}) into
~/.xcsh/agent/${REFRESHED_CATALOG_FILE}; later runs use it over the built-in catalog.
--url, or ${MODELS_DEV_URL_ENV}, fetches from another address (a mirror, a test server).
`;

/** The date of the file there, when it is a valid refreshed catalog: what "keeping" keeps. */
async function keptDescription(path: string): Promise<string> {
  try {
    const checked = checkRefreshedCatalog(JSON.parse(await Bun.file(path).text()));
    if ("catalog" in checked) return `kept ${path} (fetched ${checked.catalog.fetchedAt})`;
  } catch {
    // No file, or not one of ours.
  }
  return "kept the built-in catalog";
}

async function fetchCatalog(url: string): Promise<{ providers: RefreshedCatalog["providers"] } | { error: string }> {
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), headers: { accept: "application/json" } });
  } catch (error) {
    const reason = (error as Error).name === "TimeoutError" ? `no answer within ${TIMEOUT_MS / 1000} s` : (error as Error).message;
    return { error: `could not reach ${url}: ${reason}` };
  }
  if (!response.ok) return { error: `${url} answered HTTP ${response.status}` };
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { error: `${url} did not send JSON` };
  }
  const rows = rowsFromModelsDev(body);
  return "error" in rows ? { error: `${url} did not send a models.dev catalog: ${rows.error}` } : rows;
}

export async function runModelsCommand(args: string[]): Promise<number> {
  if (args[0] !== "update" || args.includes("--help") || args.includes("-h")) {
    (args[0] === "update" || args.length === 0 || args[0] === "--help" || args[0] === "-h" ? process.stdout : process.stderr).write(USAGE);
    return args[0] === "update" || args.length === 0 || args[0] === "--help" || args[0] === "-h" ? 0 : 2;
  }
  const urlIndex = args.indexOf("--url");
  const url = (urlIndex === -1 ? undefined : args[urlIndex + 1]) ?? process.env[MODELS_DEV_URL_ENV] ?? MODELS_DEV_URL;
  const path = join(getAgentDir(), REFRESHED_CATALOG_FILE);
  const fetched = await fetchCatalog(url);
  if ("error" in fetched) {
    process.stderr.write(`xcsh: models update failed: ${fetched.error}; ${await keptDescription(path)}\n`);
    return 1;
  }
  const catalog: RefreshedCatalog = { version: REFRESHED_CATALOG_VERSION, source: url, fetchedAt: new Date().toISOString(), providers: fetched.providers };
  try {
    writePrivateFileAtomically(path, `${JSON.stringify(catalog)}\n`);
  } catch (error) {
    process.stderr.write(`xcsh: models update failed: could not write ${path}: ${(error as Error).message}; ${await keptDescription(path)}\n`);
    return 1;
  }
  const counts = Object.values(catalog.providers).map((rows) => rows.length);
  process.stdout.write(`Updated the model catalog: ${counts.reduce((sum, count) => sum + count, 0)} models of ${counts.length} providers from ${url}, written to ${path}\n`);
  return 0;
}
