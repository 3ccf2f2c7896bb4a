/**
 * Credentials handed out by AWS at run time: an ECS task's (the container credentials
 * endpoint) and a web identity's (EKS IRSA: a token traded at STS).
 */
import { readFileSync } from "node:fs";
import { expirationOf, type AwsCredentials } from "./credential-types.ts";
import { processEnv, type EnvReader } from "../provider-env.ts";

/** Where the ECS agent (or EKS Pod Identity) hands out the task's credentials. */
export function containerCredentialsUrl(env: EnvReader = processEnv): string | undefined {
  const relative = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI");
  if (relative) return `http://169.254.170.2${relative.startsWith("/") ? "" : "/"}${relative}`;
  return env("AWS_CONTAINER_CREDENTIALS_FULL_URI");
}

export async function containerCredentials(url: string, env: EnvReader = processEnv): Promise<AwsCredentials> {
  const tokenFile = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE");
  const token = tokenFile ? readFileSync(tokenFile, "utf8").trim() : env("AWS_CONTAINER_AUTHORIZATION_TOKEN");
  let body: { AccessKeyId?: unknown; SecretAccessKey?: unknown; Token?: unknown; Expiration?: unknown };
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
    expiration: expirationOf(body.Expiration),
  };
}

/** The text of one element of STS's XML answer (its values are plain text: keys, tokens). */
function xmlValue(xml: string, name: string): string | undefined {
  const match = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return match?.[1].replaceAll("&amp;", "&").replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&quot;", '"').replaceAll("&apos;", "'");
}

export async function webIdentityCredentials(tokenFile: string, env: EnvReader = processEnv): Promise<AwsCredentials> {
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
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}), expiration: expirationOf(xmlValue(xml, "Expiration")) };
}
