import { Limits } from "../../schema/Limits.js"
import type { SdkIdentity } from "../../schema/SdkHeader.js"
import { SDK_NAME, SDK_VERSION } from "./version.js"

export type { SdkIdentity }

const VISIBLE_ASCII = /^[\x21-\x7e]+$/

/**
 * The identities an app registers (docs/api-and-auth.md "Authentication and tenancy"): trimmed, a value with any
 * character outside visible ASCII ignored, each pair once in registration
 * order. The header holds `svc-client/<version>` first and at most 8 tokens.
 */
export class SdkRegistry {
  readonly #identities: Array<SdkIdentity> = []

  register(identity: SdkIdentity): void {
    const name = typeof identity?.name === "string" ? identity.name.trim() : ""
    const version = typeof identity?.version === "string" ? identity.version.trim() : ""
    if (!VISIBLE_ASCII.test(name) || !VISIBLE_ASCII.test(version)) return
    if (this.#identities.some((known) => known.name === name && known.version === version)) return
    this.#identities.push({ name, version })
  }

  header(): string {
    const tokens = [`${SDK_NAME}/${SDK_VERSION}`]
    for (const { name, version } of this.#identities) {
      if (tokens.length >= Limits.sdkHeader.maxTokens) break
      tokens.push(`${name}/${version}`)
    }
    return tokens.join(" ")
  }
}
