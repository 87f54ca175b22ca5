import { createHash, randomBytes } from "node:crypto"

/** A bearer secret: `prefix_` + 43 URL-safe characters (256 random bits). */
export const newSecret = (prefix: "sk" | "rt"): string => `${prefix}_${randomBytes(32).toString("base64url")}`

/** What is stored of a high-entropy secret: its SHA-256, hex. */
export const hashSecret = (secret: string): string => createHash("sha256").update(secret).digest("hex")
