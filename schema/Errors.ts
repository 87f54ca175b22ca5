/**
 * Wire errors. Every body is `{ error, message, ...details }`
 * (docs/api-and-auth.md "Errors"): the `error` field is the discriminator, so
 * these are Schema classes with an `error` tag rather than TaggedErrors (which
 * would put `_tag` on the wire).
 */
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"

export class Issue extends Schema.Class<Issue>("InvalidRequestIssue")({
  path: Schema.String,
  message: Schema.String
}) {}

export class InvalidRequest extends Schema.Class<InvalidRequest>("InvalidRequest")(
  {
    error: Schema.tag("invalid_request"),
    message: Schema.String,
    issues: Schema.Array(Issue)
  },
  HttpApiSchema.annotations({ status: 400 })
) {}

export class Unauthorized extends Schema.Class<Unauthorized>("Unauthorized")(
  { error: Schema.tag("unauthorized"), message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class InvalidRefreshToken extends Schema.Class<InvalidRefreshToken>("InvalidRefreshToken")(
  { error: Schema.tag("invalid_refresh_token"), message: Schema.String },
  HttpApiSchema.annotations({ status: 401 })
) {}

export class RateLimited extends Schema.Class<RateLimited>("RateLimited")(
  { error: Schema.tag("rate_limited"), message: Schema.String },
  HttpApiSchema.annotations({ status: 429 })
) {}

export class QuotaExceeded extends Schema.Class<QuotaExceeded>("QuotaExceeded")(
  { error: Schema.tag("quota_exceeded"), message: Schema.String },
  HttpApiSchema.annotations({ status: 429 })
) {}

/** An upstream service (the title model) failed; the message never carries its details. */
export class BadGateway extends Schema.Class<BadGateway>("BadGateway")(
  { error: Schema.tag("bad_gateway"), message: Schema.String },
  HttpApiSchema.annotations({ status: 502 })
) {}

export class Forbidden extends Schema.Class<Forbidden>("Forbidden")(
  { error: Schema.tag("forbidden"), message: Schema.String },
  HttpApiSchema.annotations({ status: 403 })
) {}

export class NotFound extends Schema.Class<NotFound>("NotFound")(
  { error: Schema.tag("not_found"), message: Schema.String },
  HttpApiSchema.annotations({ status: 404 })
) {}

export class Conflict extends Schema.Class<Conflict>("Conflict")(
  { error: Schema.tag("conflict"), message: Schema.String },
  HttpApiSchema.annotations({ status: 409 })
) {}

export class PayloadTooLarge extends Schema.Class<PayloadTooLarge>("PayloadTooLarge")(
  { error: Schema.tag("payload_too_large"), message: Schema.String },
  HttpApiSchema.annotations({ status: 413 })
) {}

export class UnsupportedMediaType extends Schema.Class<UnsupportedMediaType>("UnsupportedMediaType")(
  { error: Schema.tag("unsupported_media_type"), message: Schema.String },
  HttpApiSchema.annotations({ status: 415 })
) {}

/** The store (or another dependency) cannot be reached for now; `Retry-After` says when to try again. */
export class Unavailable extends Schema.Class<Unavailable>("Unavailable")(
  { error: Schema.tag("unavailable"), message: Schema.String },
  HttpApiSchema.annotations({ status: 503 })
) {}

/**
 * A write lost its connection to the store while it ran, and the store did
 * not answer again in time to tell whether it was stored: read it back
 * before sending it again (a retry could store it twice). Never answered to
 * a read.
 */
export class OutcomeUnknown extends Schema.Class<OutcomeUnknown>("OutcomeUnknown")(
  { error: Schema.tag("outcome_unknown"), message: Schema.String },
  HttpApiSchema.annotations({ status: 504 })
) {}

export class Internal extends Schema.Class<Internal>("Internal")(
  { error: Schema.tag("internal"), message: Schema.String },
  HttpApiSchema.annotations({ status: 500 })
) {}

/** One issue at the top level of a request, for checks made outside a schema. */
export const invalid = (message: string, path = ""): InvalidRequest =>
  new InvalidRequest({ message, issues: [new Issue({ path, message })] })

export const notFound = (what: string): NotFound => new NotFound({ message: `${what} not found` })
