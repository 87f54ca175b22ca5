import { createHash, randomBytes, timingSafeEqual } from "node:crypto"

/** A bearer secret: `prefix_` + 43 URL-safe characters (256 random bits). */
export const newSecret = (prefix: "sk" | "rt" | "ds"): string => `${prefix}_${randomBytes(32).toString("base64url")}`

/** What is stored of a high-entropy secret: its SHA-256, hex. */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex")

/**
 * Constant time whatever the lengths and encodings: the SHA-256 digests are
 * compared, not the strings (admin token, blob URL signatures).
 */
export const sameSecret = (given: string, expected: string): boolean =>
  timingSafeEqual(createHash("sha256").update(given).digest(), createHash("sha256").update(expected).digest())
