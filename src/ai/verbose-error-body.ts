/**
 * Credentials out of provider error texts. A provider's error is what it sent, and some
 * providers echo part of the request back: a key in a message ("Incorrect API key
 * provided: sk-…"), an Authorization header in a proxy's dump. So before an error message
 * or body is shown, written to a frame or kept in a session file, the key in use, the
 * values of the environment's credential variables and anything shaped like a key or a
 * bearer token are replaced by `[redacted]` (`redactCredentials`). The raw body as
 * `--verbose` shows it is also cut to a readable length (`verboseErrorBody`): a debugging
 * aid, not a log. Request headers are never shown.
 */

const MAX_CHARS = 2000;
const REDACTED = "[redacted]";

/** Variables whose values are credentials (provider keys, tokens, cloud secrets). */
const CREDENTIAL_VARIABLE = /(KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH)/i;
/** Values too short to be secrets would blank out ordinary words. */
const MIN_SECRET_LENGTH = 8;

/** Key and token shapes: OpenAI/Anthropic `sk-…`, Google `AIza…`, AWS access key ids, Bearer and Basic credentials, JWTs. */
const SECRET_SHAPES: readonly RegExp[] = [
  /\bsk-[A-Za-z0-9_-]{8,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\b(?:AKIA|ASIA)[0-9A-Z]{12,}/g,
  /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(Basic\s+)[A-Za-z0-9+/=]{8,}/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g,
];

/**
 * The spellings a secret takes when a provider or proxy echoes it inside something else:
 * base64 (standard and URL-safe, without padding; a header dump), percent-encoded (a query
 * string), JSON-escaped (a body quoting the request). Each is hidden as the secret is.
 */
function spellings(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const found = [secret, encodeURIComponent(secret), json, json.replace(/\//g, "\\/")];
  // In base64 a secret reads differently by where it starts in the encoded bytes (three ways):
  // of each, the characters that depend on the secret alone.
  for (let shift = 0; shift < 3; shift++) {
    const bytes = Buffer.concat([Buffer.alloc(shift), Buffer.from(secret, "utf8")]);
    const base64 = bytes.toString("base64").slice(shift ? 4 : 0, Math.floor(bytes.length / 3) * 4);
    found.push(base64, base64.replace(/\+/g, "-").replace(/\//g, "_"));
  }
  return found.filter((spelling) => spelling.length >= MIN_SECRET_LENGTH);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** The text with credentials replaced. `secrets` are extra values to hide (the key in use). */
export function redactCredentials(
  text: string,
  secrets: readonly (string | undefined)[] = [],
  env: Record<string, string | undefined> = process.env,
): string {
  const known = new Set<string>();
  for (const value of secrets) if (typeof value === "string" && value.length >= MIN_SECRET_LENGTH) for (const spelling of spellings(value)) known.add(spelling);
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && CREDENTIAL_VARIABLE.test(name)) for (const spelling of spellings(value)) known.add(spelling);
  }
  let redacted = text;
  // Longest first, so a secret that contains another is hidden whole.
  for (const secret of [...known].sort((a, b) => b.length - a.length)) redacted = redacted.replace(new RegExp(escapeRegExp(secret), "g"), REDACTED);
  for (const shape of SECRET_SHAPES) redacted = redacted.replace(shape, (_match, prefix?: string) => (typeof prefix === "string" ? prefix : "") + REDACTED);
  return redacted;
}

/** The body with credentials replaced, cut to a readable length. `secrets` are extra values to hide (the key in use). */
export function verboseErrorBody(rawBody: string, secrets: readonly string[] = [], env: Record<string, string | undefined> = process.env): string {
  const text = redactCredentials(rawBody, secrets, env).trim();
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}… (${text.length - MAX_CHARS} more characters)` : text;
}
