/**
 * Certificate failures, told apart from other connection errors. Behind a company's
 * TLS-inspecting proxy or a private CA, every request fails with a certificate error that
 * the provider SDKs report as a bare "Connection error."; the person needs to hear that it
 * is the certificate and which variable makes xcsh trust their CA. Retrying cannot help.
 */

/** OpenSSL / BoringSSL verification codes (what Bun's fetch puts in `code`). */
const CERTIFICATE_CODES = new Set([
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "CERT_SIGNATURE_FAILURE",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
]);

export const CA_HINT =
  "If your network uses its own certificate authority (a company proxy), set NODE_EXTRA_CA_CERTS (or SSL_CERT_FILE) to its PEM file.";

/** The certificate failure somewhere in `error`'s cause chain, as "reason (CODE)", or undefined. */
export function certificateFailure(error: unknown): string | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current && typeof current === "object"; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === "string" && CERTIFICATE_CODES.has(code)) {
      return typeof message === "string" && message ? `${message} (${code})` : code;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when an error text produced from a certificate failure (see errorText) is at hand. */
export function isCertificateErrorText(text: string): boolean {
  return text.includes(CA_HINT);
}
