/**
 * The endpoints of the sign-in flows, and their test-only overrides. Tests run the flows
 * against fake authorization and token servers by setting `XCSH_TEST_OAUTH_<NAME>`;
 * nothing else should. So that an override can never point a real user elsewhere
 * unnoticed, each one used is announced on stderr, once per process.
 */

/** The real endpoints, by the name of their override (`XCSH_TEST_OAUTH_<name>`). */
export const REAL_ENDPOINTS = {
  /** github.com: device code and access token. */
  GITHUB_URL: "https://github.com",
  /** api.github.com: the Copilot token exchange. */
  GITHUB_API_URL: "https://api.github.com",
  /** The Copilot API; really derived from the Copilot token (its proxy-ep). */
  COPILOT_API_URL: "",
  /** auth.openai.com: the ChatGPT sign-in's authorize and token endpoints. */
  OPENAI_AUTH_URL: "https://auth.openai.com",
  /** The Codex Responses endpoint of ChatGPT plans. */
  CODEX_API_URL: "https://chatgpt.com/backend-api/codex",
} as const;

export type EndpointName = keyof typeof REAL_ENDPOINTS;

const announced = new Set<string>();

/** The override of an endpoint, when a test set one (announced on stderr); else undefined. */
export function testOverride(name: EndpointName | "CALLBACK_PORT" | "SECOND_MS" | "ENTERPRISE_SCHEME"): string | undefined {
  const variable = `XCSH_TEST_OAUTH_${name}`;
  const value = process.env[variable];
  if (!value) return undefined;
  if (!announced.has(variable)) {
    announced.add(variable);
    process.stderr.write(`xcsh: test-only override ${variable}=${value} is in effect\n`);
  }
  return value.replace(/\/+$/, "");
}

/** The endpoint to use: the test override, else the real one. */
export function endpoint(name: Exclude<EndpointName, "COPILOT_API_URL">): string {
  return testOverride(name) ?? REAL_ENDPOINTS[name];
}

/** Milliseconds in a "second" of a polling interval (a test shortens it to keep the flow fast). */
export function pollSecondMs(): number {
  const value = Number(testOverride("SECOND_MS"));
  return Number.isFinite(value) && value > 0 ? value : 1000;
}
