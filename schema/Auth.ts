import * as Schema from "effect/Schema"

/** `POST /v1/auth/tokens`: a service-issued access token (a 5-minute JWT). */
export const TokenIssued = Schema.Struct({ token: Schema.String })
