/**
 * AWS's shared files, read by hand (two small INI files do not need the AWS SDK):
 * ~/.aws/credentials and ~/.aws/config (AWS_SHARED_CREDENTIALS_FILE and AWS_CONFIG_FILE
 * move them), a profile's keys, and its credential_process.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { BEDROCK_CREDENTIAL_HINT, expirationOf, type AwsCredentials } from "./credential-types.ts";
import { processEnv, type EnvReader } from "../provider-env.ts";
import { ownProgramLaunch } from "../../own-program-seam.ts";

type IniSections = Record<string, Record<string, string>>;

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
export function readProfile(name: string, env: EnvReader = processEnv): Record<string, string> | undefined {
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
  // A program of xcsh's own: from the home folder, without the provider keys (sandbox/own-programs.ts).
  const child = Bun.spawn({ ...ownProgramLaunch(["/bin/sh", "-c", command]), stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill(), 60_000);
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  if (exitCode !== 0) throw new Error(`credential_process of AWS profile "${profile}" failed (exit ${exitCode}): ${stderr.trim() || stdout.trim()}`);
  let parsed: { AccessKeyId?: unknown; SecretAccessKey?: unknown; SessionToken?: unknown; Expiration?: unknown };
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
    expiration: expirationOf(parsed.Expiration),
  };
}

export async function profileCredentials(name: string, settings: Record<string, string>): Promise<AwsCredentials> {
  if (settings.aws_access_key_id && settings.aws_secret_access_key) {
    return {
      accessKeyId: settings.aws_access_key_id,
      secretAccessKey: settings.aws_secret_access_key,
      ...(settings.aws_session_token ? { sessionToken: settings.aws_session_token } : {}),
    };
  }
  if (settings.credential_process) return runCredentialProcess(settings.credential_process, name);
  const what =
    settings.sso_session || settings.sso_start_url
      ? "signs in with AWS SSO, which xcsh does not do itself"
      : settings.role_arn
        ? "assumes a role, which xcsh does not do itself"
        : "has neither aws_access_key_id and aws_secret_access_key nor a credential_process";
  throw new Error(
    `AWS profile "${name}" ${what}: give a profile \`credential_process = aws configure export-credentials --profile ${name}\`, or ${BEDROCK_CREDENTIAL_HINT}`,
  );
}
