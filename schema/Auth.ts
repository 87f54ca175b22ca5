import * as Schema from "effect/Schema"
import { Timestamp } from "./Common.js"
import { StorableString } from "./Text.js"

/** `POST /v1/auth/tokens`: a service-issued access token (a 5-minute JWT). */
export const TokenIssued = Schema.Struct({ token: Schema.String })

/** The answer of the anonymous session routes (docs/decisions.md "Anonymous sessions and claim"). */
export const Session = Schema.Struct({
  access_token: Schema.String,
  token_type: Schema.Literal("Bearer"),
  expires_in: Schema.Number,
  refresh_token: Schema.Struct({ token: Schema.String, expires_at: Timestamp })
})

const RefreshToken = StorableString.pipe(Schema.minLength(1), Schema.maxLength(256))

/** Not a live token: a docs page's request with it answers 401 invalid_refresh_token. */
const exampleRefresh = { refresh_token: "rt_01M80KEP26YA9DZXRJENQJN9YP.mlQ8cBvV1j0fJ3tq5Hc2pA" }

export const RefreshRequest = Schema.Struct({ refresh_token: RefreshToken }).annotations({ examples: [exampleRefresh] })

export const ClaimRequest = Schema.Struct({ refresh_token: RefreshToken }).annotations({ examples: [exampleRefresh] })
export const Claimed = Schema.Struct({ moved: Schema.Number })
