/** Tokens are reused until this close to their expiry (docs/client-library.md "Three modes"). */
export const FRESHNESS_MARGIN_MS = 30_000

const base64UrlDecode = (text: string): string => {
  const base64 = text.replace(/-/g, "+").replace(/_/g, "/")
  const binary = atob(base64 + "=".repeat((4 - (base64.length % 4)) % 4))
  const bytes = Uint8Array.from(binary, (char) => char.charCodeAt(0))
  return new TextDecoder().decode(bytes)
}

/** A JWT's `exp` in milliseconds, or undefined when the token is no JWT with a numeric `exp`. */
export const jwtExpiryMs = (token: string): number | undefined => {
  const parts = token.split(".")
  if (parts.length !== 3 || parts[1] === undefined) return undefined
  try {
    const payload: unknown = JSON.parse(base64UrlDecode(parts[1]))
    if (typeof payload !== "object" || payload === null) return undefined
    const exp = (payload as { exp?: unknown }).exp
    return typeof exp === "number" && Number.isFinite(exp) ? exp * 1000 : undefined
  } catch {
    return undefined
  }
}

/** Whether a token expiring at `expiresAtMs` may still be used now. */
export const isFresh = (expiresAtMs: number | undefined): boolean =>
  expiresAtMs !== undefined && expiresAtMs - Date.now() > FRESHNESS_MARGIN_MS
