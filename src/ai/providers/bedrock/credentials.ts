/**
 * Who a Bedrock request is from and which region it goes to, from pi's variables and
 * AWS's own files (read here: two small INI files do not need the AWS SDK).
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
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export type BedrockAuth = { kind: "bearer"; token: string } | { kind: "sigv4"; credentials: AwsCredentials } | { kind: "none" };

type IniSections = Record<string, Record<string, string>>;

const env = (name: string): string | undefined => process.env[name]?.trim() || undefined;

/** What to set, for every "no credentials" error. */
export const BEDROCK_CREDENTIAL_HINT =
  "set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (with AWS_SESSION_TOKEN for temporary keys), or AWS_BEARER_TOKEN_BEDROCK";

/** `[section]` headers and `key = value` lines; `#`/`;` comments. Enough for AWS's files. */
export function parseIni(text: string): IniSections {
  const sections: IniSections = {};
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      current = sections[header[1].trim()] ??= {};
      continue;
    }
    const equals = line.indexOf("=");
    if (equals > 0 && current) current[line.slice(0, equals).trim().toLowerCase()] = line.slice(equals + 1).trim();
  }
  return sections;
}

function readIni(path: string): IniSections {
  if (!existsSync(path)) return {};
  try {
    return parseIni(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`Could not read ${path}: ${(error as Error).message}`);
  }
}

/** A profile's settings: the credentials file's section over the config file's (`[profile name]`, or `[default]`). */
export function readProfile(name: string): Record<string, string> | undefined {
  const credentialsFile = env("AWS_SHARED_CREDENTIALS_FILE") ?? join(homedir(), ".aws", "credentials");
  const configFile = env("AWS_CONFIG_FILE") ?? join(homedir(), ".aws", "config");
  const config = readIni(configFile);
  const fromConfig = config[`profile ${name}`] ?? (name === "default" ? config.default : undefined);
  const fromCredentials = readIni(credentialsFile)[name];
  if (!fromConfig && !fromCredentials) return undefined;
  return { ...fromConfig, ...fromCredentials };
}

/** A credential_process's JSON output (AWS's documented shape, Version 1). */
async function runCredentialProcess(command: string, profile: string): Promise<AwsCredentials> {
  const child = Bun.spawn(["/bin/sh", "-c", command], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill(), 60_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  if (exitCode !== 0) throw new Error(`credential_process of AWS profile "${profile}" failed (exit ${exitCode}): ${stderr.trim() || stdout.trim()}`);
  let parsed: { AccessKeyId?: unknown; SecretAccessKey?: unknown; SessionToken?: unknown };
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new Error(`credential_process of AWS profile "${profile}" did not print JSON`);
  }
  if (typeof parsed.AccessKeyId !== "string" || typeof parsed.SecretAccessKey !== "string") {
    throw new Error(`credential_process of AWS profile "${profile}" printed no AccessKeyId and SecretAccessKey`);
  }
  return {
    accessKeyId: parsed.AccessKeyId,
    secretAccessKey: parsed.SecretAccessKey,
    ...(typeof parsed.SessionToken === "string" ? { sessionToken: parsed.SessionToken } : {}),
  };
}

async function profileCredentials(name: string, settings: Record<string, string>): Promise<AwsCredentials> {
  if (settings.aws_access_key_id && settings.aws_secret_access_key) {
    return {
      accessKeyId: settings.aws_access_key_id,
      secretAccessKey: settings.aws_secret_access_key,
      ...(settings.aws_session_token ? { sessionToken: settings.aws_session_token } : {}),
    };
  }
  if (settings.credential_process) return runCredentialProcess(settings.credential_process, name);
  const kind = settings.sso_session || settings.sso_start_url ? "AWS SSO" : settings.role_arn ? "an assumed role" : "no keys";
  throw new Error(
    `AWS profile "${name}" uses ${kind}, which xcsh cannot sign in with: add \`credential_process = aws configure export-credentials --profile ${name}\` to a profile, or ${BEDROCK_CREDENTIAL_HINT}`,
  );
}

/** The credentials for a request; `apiKey` is the key xcsh resolved (undefined, or the ambient placeholder, for none). */
export async function resolveBedrockAuth(apiKey: string | undefined): Promise<BedrockAuth> {
  if (apiKey) return { kind: "bearer", token: apiKey };
  if (env("AWS_BEDROCK_SKIP_AUTH") === "1") return { kind: "none" };
  const profile = env("AWS_PROFILE");
  if (profile) {
    const settings = readProfile(profile);
    if (!settings) throw new Error(`AWS profile "${profile}" (AWS_PROFILE) is in neither ~/.aws/credentials nor ~/.aws/config`);
    return { kind: "sigv4", credentials: await profileCredentials(profile, settings) };
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
  const fallback = readProfile("default");
  if (fallback) return { kind: "sigv4", credentials: await profileCredentials("default", fallback) };
  const container = containerCredentialsUrl();
  if (container) return { kind: "sigv4", credentials: await containerCredentials(container) };
  const tokenFile = env("AWS_WEB_IDENTITY_TOKEN_FILE");
  if (tokenFile) return { kind: "sigv4", credentials: await webIdentityCredentials(tokenFile) };
  throw new Error(`Amazon Bedrock has no credentials: ${BEDROCK_CREDENTIAL_HINT}`);
}

/** Where the ECS agent (or EKS Pod Identity) hands out the task's credentials. */
function containerCredentialsUrl(): string | undefined {
  const relative = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  if (relative) return `http://169.254.170.2${relative.startsWith("/") ? "" : "/"}${relative}`;
  return env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
}

async function containerCredentials(url: string): Promise<AwsCredentials> {
  const tokenFile = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  const token = tokenFile ? readFileSync(tokenFile, "utf8").trim() : env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  let body: { AccessKeyId?: unknown; SecretAccessKey?: unknown; Token?: unknown };
  try {
    const response = await fetch(url, { headers: token ? { authorization: token } : {}, signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    body = (await response.json()) as typeof body;
  } catch (error) {
    throw new Error(`Could not get the container's AWS credentials from ${url}: ${(error as Error).message}`);
  }
  if (typeof body.AccessKeyId !== "string" || typeof body.SecretAccessKey !== "string") {
    throw new Error(`The container credentials endpoint ${url} gave no AccessKeyId and SecretAccessKey`);
  }
  return {
    accessKeyId: body.AccessKeyId,
    secretAccessKey: body.SecretAccessKey,
    ...(typeof body.Token === "string" ? { sessionToken: body.Token } : {}),
  };
}

/** The text of one element of STS's XML answer (its values are plain text: keys, tokens). */
function xmlValue(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match?.[1].replaceAll("&amp;", "&").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&apos;", "'");
}

async function webIdentityCredentials(tokenFile: string): Promise<AwsCredentials> {
  const roleArn = env("AWS_ROLE_ARN");
  if (!roleArn) throw new Error("Amazon Bedrock: AWS_WEB_IDENTITY_TOKEN_FILE is set but AWS_ROLE_ARN is not (the two go together)");
  let token: string;
  try {
    token = readFileSync(tokenFile, "utf8").trim();
  } catch (error) {
    throw new Error(`Could not read the web identity token ${tokenFile} (AWS_WEB_IDENTITY_TOKEN_FILE): ${(error as Error).message}`);
  }
  const region = env("AWS_REGION") ?? env("AWS_DEFAULT_REGION");
  const sts = env("AWS_ENDPOINT_URL_STS") ?? (region ? `https://sts.${region}.amazonaws.com` : "https://sts.amazonaws.com");
  const form = new URLSearchParams({
    Action: "AssumeRoleWithWebIdentity",
    Version: "2011-06-15",
    RoleArn: roleArn,
    RoleSessionName: env("AWS_ROLE_SESSION_NAME") ?? `xcsh-${Date.now()}`,
    WebIdentityToken: token,
  });
  let xml: string;
  try {
    const response = await fetch(sts, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: form, signal: AbortSignal.timeout(10_000) });
    xml = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${xmlValue(xml, "Message") ?? xml.slice(0, 200)}`);
  } catch (error) {
    throw new Error(`Could not assume ${roleArn} with the web identity token at ${sts}: ${(error as Error).message}`);
  }
  const accessKeyId = xmlValue(xml, "AccessKeyId");
  const secretAccessKey = xmlValue(xml, "SecretAccessKey");
  if (!accessKeyId || !secretAccessKey) throw new Error(`STS's answer for ${roleArn} held no AccessKeyId and SecretAccessKey`);
  const sessionToken = xmlValue(xml, "SessionToken");
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

const STANDARD_ENDPOINT = /^https:\/\/bedrock-runtime(-fips)?\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\/?$/;

/** The region a request is signed for and sent to. */
export function resolveBedrockRegion(modelId: string, baseUrl: string): string {
  const fromArn = /^arn:aws[a-z-]*:bedrock:([a-z0-9-]+):/.exec(modelId)?.[1];
  const profile = env("AWS_PROFILE");
  return (
    fromArn ??
    env("AWS_REGION") ??
    env("AWS_DEFAULT_REGION") ??
    readProfile(profile ?? "default")?.region ??
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
