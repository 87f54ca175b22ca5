/**
 * Credentials out of what is logged or traced. A URL can carry one in its
 * query (the local blob store's `signature`, S3's presigned `X-Amz-Signature`
 * / `X-Amz-Credential` / `X-Amz-Security-Token`, an OAuth `access_token` or
 * `code`, an API `key`...); a message can quote an `Authorization` value.
 * Values are replaced by REDACTED, names stay (they say what was there).
 */

/** Query parameters whose value is a credential (compared without case). */
export const SECRET_QUERY_PARAMS: ReadonlyArray<string> = [
  "signature",
  "sig",
  "x-amz-signature",
  "x-amz-credential",
  "x-amz-security-token",
  "token",
  "access_token",
  "refresh_token",
  "id_token",
  "code",
  "key",
  "api_key",
  "apikey",
  "password",
  "secret",
  "client_secret"
]

export const REDACTED = "REDACTED"

const escapeForRegExp = (name: string) => name.replace(/[.*+?^${}()|[\]\\-]/g, "\\$&")

/** `?name=value` / `&name=value` of a secret parameter; the value ends at `&`, `#`, a quote, a backslash or a space. */
const SECRET_PARAM = new RegExp(`([?&](?:${SECRET_QUERY_PARAMS.map(escapeForRegExp).join("|")})=)[^&#"'\\\\\\s]*`, "gi")

/** `Bearer <credential>` / `Basic <credential>`, as an Authorization value is quoted. */
const AUTHORIZATION = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]+/gi

/** Whether the text may hold an Authorization value, in any case (the scheme is case-insensitive, RFC 9110). */
const mayHoldCredential = (text: string) => /bearer|basic/i.test(text)

/** A URL (or path and query) with the values of secret query parameters replaced. */
export const redactUrl = (url: string): string =>
  url.indexOf("?") === -1 ? url : url.replace(SECRET_PARAM, `$1${REDACTED}`)

/**
 * Any text (a whole log line): secret query parameters and Authorization
 * values replaced. Cheap tests first: most lines have no query and no
 * credential, and pay three substring searches instead of two regex passes.
 */
export const redactText = (text: string): string => {
  let out = text
  if (out.includes("?") || out.includes("&")) out = out.replace(SECRET_PARAM, `$1${REDACTED}`)
  if (mayHoldCredential(out)) out = out.replace(AUTHORIZATION, `$1 ${REDACTED}`)
  return out
}
