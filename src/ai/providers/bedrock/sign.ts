/**
 * SigV4 request signing, behind a thin adapter over aws4fetch's AwsV4Signer: a small,
 * dependency-free, maintained signer on WebCrypto (rather than @smithy/signature-v4,
 * which brings seven @smithy packages). Headers are signed; a session token goes in
 * X-Amz-Security-Token and is signed too.
 */
import { AwsV4Signer } from "aws4fetch";
import type { AwsCredentials } from "./credentials.ts";

export interface SigningRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  credentials: AwsCredentials;
  region: string;
  service: string;
  /** The signing time as YYYYMMDD'T'HHMMSS'Z'; now when absent (a fixed one is for test vectors). */
  datetime?: string;
}

/** The request's headers with X-Amz-Date, the session token and Authorization added. */
export async function signRequest(request: SigningRequest): Promise<Headers> {
  const signer = new AwsV4Signer({
    method: request.method,
    url: request.url,
    headers: request.headers,
    body: request.body,
    accessKeyId: request.credentials.accessKeyId,
    secretAccessKey: request.credentials.secretAccessKey,
    sessionToken: request.credentials.sessionToken,
    region: request.region,
    service: request.service,
    datetime: request.datetime,
  });
  return (await signer.sign()).headers;
}
