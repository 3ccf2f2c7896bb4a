/** What a Bedrock request is authorized with, shared by the credential sources. */

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  /** When temporary credentials run out (ms since the epoch), when their source says. */
  expiration?: number;
}

/** An ISO time from AWS (credential_process, the container endpoint, STS) as ms, when it is one. */
export function expirationOf(value: unknown): number | undefined {
  const time = typeof value === "string" ? Date.parse(value) : NaN;
  return Number.isNaN(time) ? undefined : time;
}

export type BedrockAuth = { kind: "bearer"; token: string } | { kind: "sigv4"; credentials: AwsCredentials } | { kind: "none" };

/** What to set, for every "no credentials" error. */
export const BEDROCK_CREDENTIAL_HINT =
  "set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary keys), or AWS_BEARER_TOKEN_BEDROCK";

