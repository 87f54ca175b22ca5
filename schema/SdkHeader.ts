import { Limits } from "./Limits.js"

export interface SdkIdentity {
  readonly name: string
  readonly version: string
}

export type ParsedSdkHeader =
  | { readonly _tag: "Ok"; readonly identities: ReadonlyArray<SdkIdentity> }
  | { readonly _tag: "TooManyTokens"; readonly count: number }

const PRINTABLE = /^[\x21-\x7e]+$/

/**
 * `Svc-Sdk: svc-client/0.2.0 my-app/1.4.0 ...` (docs/api-and-auth.md "Authentication and tenancy"): at most 8
 * space-separated tokens. Each well-formed `name/version` token is an identity;
 * other tokens count toward the 8 but are not recorded.
 */
export const parseSdkHeader = (header: string | undefined): ParsedSdkHeader => {
  if (header === undefined) return { _tag: "Ok", identities: [] }
  const tokens = header.split(/\s+/).filter((token) => token.length > 0)
  if (tokens.length > Limits.sdkHeader.maxTokens) return { _tag: "TooManyTokens", count: tokens.length }
  const identities: Array<SdkIdentity> = []
  for (const token of tokens) {
    const slash = token.indexOf("/")
    if (slash <= 0 || slash === token.length - 1) continue
    const name = token.slice(0, slash)
    const version = token.slice(slash + 1)
    if (name.length > Limits.sdkHeader.tokenPartMaxLength || version.length > Limits.sdkHeader.tokenPartMaxLength)
      continue
    if (!PRINTABLE.test(name) || !PRINTABLE.test(version)) continue
    if (!identities.some((known) => known.name === name && known.version === version))
      identities.push({ name, version })
  }
  return { _tag: "Ok", identities }
}
