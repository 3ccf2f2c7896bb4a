/**
 * Who a Bedrock request is from and which region it goes to, from pi's variables and
 * AWS's own files (aws-profiles.ts) or services (aws-runtime-credentials.ts).
 *
 * Credentials, first match wins:
 *  1. a key given to xcsh (--api-key, auth.json, models.json, AWS_BEARER_TOKEN_BEDROCK):
 *     a Bedrock API key, sent as `Authorization: Bearer`, nothing signed;
 *  2. AWS_BEDROCK_SKIP_AUTH=1: nothing at all (a proxy that signs for itself);
 *  3. AWS_PROFILE: that profile of ~/.aws/credentials and ~/.aws/config (its keys, or
 *     its credential_process) — named explicitly, it wins over keys in the environment,
 *     as with the AWS SDK;
 *  4. AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN);
 *  5. the `default` profile, if the files have one;
 *  6. ECS task credentials: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI (on the ECS agent's
 *     address) or _FULL_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE) when set;
 *  7. a web identity (EKS's IRSA): AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, traded
 *     at STS (AssumeRoleWithWebIdentity, itself unsigned) for temporary keys;
 *     AWS_ENDPOINT_URL_STS moves STS, as it does for the AWS SDKs.
 * Region: an inference-profile ARN's own, AWS_REGION, AWS_DEFAULT_REGION, the profile's
 * `region`, the region of the model's endpoint, us-east-1.
 * Every variable is read through an EnvReader (../provider-env.ts): the `env` of the
 * provider's auth.json entry first, then the process environment.
 */
import { containerCredentials, containerCredentialsUrl, webIdentityCredentials } from "./aws-runtime-credentials.ts";
import { profileCredentials, readProfile } from "./aws-profiles.ts";
import { BEDROCK_CREDENTIAL_HINT, type AwsCredentials, type BedrockAuth } from "./credential-types.ts";
import { processEnv, type EnvReader } from "../provider-env.ts";

export { BEDROCK_CREDENTIAL_HINT, type AwsCredentials, type BedrockAuth } from "./credential-types.ts";

/** Temporary credentials are used until this close to their end, then fetched again. */
const REFRESH_MARGIN_MS = 5 * 60_000;
const fetched = new Map<string, AwsCredentials>();

/**
 * Credentials that cost a process or a round trip (credential_process, ECS, STS) are
 * reused while they have a known end well ahead, not fetched again for every turn.
 * They are AWS's own short-lived keys, held in memory only, never written anywhere.
 */
async function reuse(source: string, load: () => Promise<AwsCredentials>): Promise<AwsCredentials> {
  const held = fetched.get(source);
  if (held?.expiration !== undefined && held.expiration - REFRESH_MARGIN_MS > Date.now()) return held;
  const fresh = await load();
  fetched.set(source, fresh);
  return fresh;
}

/** The credentials for a request; `apiKey` is the key xcsh resolved (undefined, or the ambient placeholder, for none). */
export async function resolveBedrockAuth(apiKey: string | undefined, env: EnvReader = processEnv): Promise<BedrockAuth> {
  if (apiKey) return { kind: "bearer", token: apiKey };
  if (env("AWS_BEDROCK_SKIP_AUTH") === "1") return { kind: "none" };
  const profile = env("AWS_PROFILE");
  if (profile) {
    const settings = readProfile(profile, env);
    if (!settings) throw new Error(`AWS profile "${profile}" (AWS_PROFILE) is in neither ~/.aws/credentials nor ~/.aws/config`);
    return { kind: "sigv4", credentials: await reuse(`profile ${profile}`, () => profileCredentials(profile, settings)) };
  }
  const accessKeyId = env("AWS_ACCESS_KEY_ID");
  const secretAccessKey = env("AWS_SECRET_ACCESS_KEY");
  if (accessKeyId && secretAccessKey) {
    const sessionToken = env("AWS_SESSION_TOKEN");
    return { kind: "sigv4", credentials: { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) } };
  }
  if (accessKeyId || secretAccessKey) {
    throw new Error(`Amazon Bedrock: ${accessKeyId ? "AWS_SECRET_ACCESS_KEY" : "AWS_ACCESS_KEY_ID"} is not set (the two go together)`);
  }
  const fallback = readProfile("default", env);
  if (fallback) return { kind: "sigv4", credentials: await reuse("profile default", () => profileCredentials("default", fallback)) };
  const container = containerCredentialsUrl(env);
  if (container) return { kind: "sigv4", credentials: await reuse(`container ${container}`, () => containerCredentials(container, env)) };
  const tokenFile = env("AWS_WEB_IDENTITY_TOKEN_FILE");
  if (tokenFile) return { kind: "sigv4", credentials: await reuse(`web identity ${tokenFile}`, () => webIdentityCredentials(tokenFile, env)) };
  throw new Error(`Amazon Bedrock has no credentials: ${BEDROCK_CREDENTIAL_HINT}`);
}

const STANDARD_ENDPOINT = /^https:\/\/bedrock-runtime(-fips)?\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\/?$/;

/** The region a request is signed for and sent to. */
export function resolveBedrockRegion(modelId: string, baseUrl: string, env: EnvReader = processEnv): string {
  const fromArn = /^arn:aws[a-z-]*:bedrock:([a-z0-9-]+):/.exec(modelId)?.[1];
  const profile = env("AWS_PROFILE");
  return (
    fromArn ??
    env("AWS_REGION") ??
    env("AWS_DEFAULT_REGION") ??
    readProfile(profile ?? "default", env)?.region ??
    STANDARD_ENDPOINT.exec(baseUrl)?.[2] ??
    "us-east-1"
  );
}

/** AWS's endpoint for the region, or the model's baseUrl as it is when it names another host (a proxy, a VPC endpoint). */
export function resolveBedrockEndpoint(baseUrl: string, region: string): string {
  const standard = STANDARD_ENDPOINT.exec(baseUrl);
  if (standard || !baseUrl) return `https://bedrock-runtime${standard?.[1] ?? ""}.${region}.amazonaws.com${standard?.[3] ?? ""}`;
  return baseUrl.replace(/\/+$/, "");
}
