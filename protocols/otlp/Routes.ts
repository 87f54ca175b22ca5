/**
 * `POST /v1/traces`: OTLP/HTTP trace exports (docs/decisions.md "Traces
 * (OTLP/HTTP)"). This module is the transport only, as the Collector's
 * otlpreceiver keeps it: the API key, media types (JSON in UTF-8 only), gzip,
 * the 4 MB caps before and after inflating, the status table and the answer
 * in the request's encoding. What is kept and what becomes a run is
 * src/traces/Traces.ts's business.
 *
 * Status table: 200 with ExportTraceServiceResponse (partial_success when
 * spans were refused); 400 a body that does not decode; 401 no valid API
 * key; 413 over 4 MB, sent or inflated; 415 another media type or content
 * encoding; 503 with Retry-After when the store is unreachable or too many
 * exports wait (the stock exporters retry on it). Errors carry a
 * google.rpc.Status in the request's encoding, with the gateway's
 * `{ error, message }` beside it in JSON.
 */
import { promisify } from "node:util"
import { gunzip } from "node:zlib"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Limits } from "../../schema/Limits.js"
import { TRACES_PATH } from "../../schema/Trace.js"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { errorCode } from "../../src/platform/ErrorCode.js"
import { type DecodedExport, type ExportOutcome, Traces } from "../../src/traces/Traces.js"
import { bearerOf } from "../rest/Auth.js"
import { DecodeFailure, decodeExport } from "./Decode.js"
import { ExportTraceServiceRequest, ExportTraceServiceResponse, RpcStatus } from "./Proto.js"

type Encoding = "protobuf" | "json"

/** A body refused before it is stored, and the answer that says so. */
class Refused extends Data.TaggedError("Refused")<{ readonly response: HttpServerResponse.HttpServerResponse }> {}

/** gRPC codes OTLP puts in its Status answers. */
const GRPC = { invalidArgument: 3, resourceExhausted: 8, unavailable: 14, unauthenticated: 16 } as const

const MAX = Limits.trace.exportMaxBytes
/** Seconds an exporter is asked to wait when the gateway is busy with other exports. */
const BUSY_RETRY_AFTER_S = 1

const inflate = promisify(gunzip)

const mediaType = (header: string | undefined) => (header?.split(";")[0] ?? "").trim().toLowerCase()

/** The charset parameter of a Content-Type, lowercased and unquoted; undefined when there is none. */
const charsetOf = (header: string | undefined): string | undefined => {
  for (const parameter of (header ?? "").split(";").slice(1)) {
    const [name, value] = parameter.split("=")
    if (name?.trim().toLowerCase() === "charset")
      return (value ?? "")
        .trim()
        .replace(/^"(.*)"$/, "$1")
        .toLowerCase()
  }
  return undefined
}

/** The export's encoding; undefined for another media type, or text in a charset other than UTF-8. */
const encodingOf = (request: HttpServerRequest.HttpServerRequest): Encoding | undefined => {
  const header = request.headers["content-type"]
  const charset = charsetOf(header)
  if (charset !== undefined && charset !== "utf-8" && charset !== "utf8") return undefined
  switch (mediaType(header)) {
    case "application/x-protobuf":
    case "application/protobuf":
      return "protobuf"
    case "application/json":
      return "json"
    default:
      return undefined
  }
}

const failure = (
  status: number,
  code: number,
  error: string,
  message: string,
  encoding: Encoding,
  headers: Record<string, string> = {}
) =>
  encoding === "protobuf"
    ? HttpServerResponse.uint8Array(RpcStatus.encode(RpcStatus.create({ code, message })).finish(), {
        status,
        contentType: "application/x-protobuf",
        headers
      })
    : HttpServerResponse.unsafeJson({ error, message, code }, { status, headers })

const answer = (outcome: ExportOutcome, encoding: Encoding) => {
  const partial =
    outcome.rejected === 0 ? undefined : { rejectedSpans: outcome.rejected, errorMessage: outcome.message }
  if (encoding === "protobuf") {
    const message = ExportTraceServiceResponse.create(partial === undefined ? {} : { partialSuccess: partial })
    return HttpServerResponse.uint8Array(ExportTraceServiceResponse.encode(message).finish(), {
      status: 200,
      contentType: "application/x-protobuf"
    })
  }
  // OTLP/JSON writes int64 as a decimal string.
  return HttpServerResponse.unsafeJson(
    partial === undefined
      ? {}
      : { partialSuccess: { rejectedSpans: String(partial.rejectedSpans), errorMessage: partial.errorMessage } },
    { status: 200 }
  )
}

type Body = { readonly _tag: "Bytes"; readonly bytes: Uint8Array } | { readonly _tag: "TooLarge" }

/** The body, inflated when gzip: never more than MAX bytes are made (a gzip bomb stops there). */
const bodyOf = (request: HttpServerRequest.HttpServerRequest, gzip: boolean) =>
  Effect.flatMap(request.arrayBuffer, (buffer) => {
    const sent = new Uint8Array(buffer)
    if (sent.length > MAX) return Effect.succeed<Body | undefined>({ _tag: "TooLarge" })
    if (!gzip) return Effect.succeed<Body | undefined>({ _tag: "Bytes", bytes: sent })
    return Effect.tryPromise(() => inflate(sent, { maxOutputLength: MAX })).pipe(
      Effect.map((bytes): Body | undefined => ({ _tag: "Bytes", bytes })),
      Effect.catchAll((error) =>
        // Node stops inflating at maxOutputLength and says so; anything else is not gzip.
        Effect.succeed<Body | undefined>(
          errorCode(error.error) === "ERR_BUFFER_TOO_LARGE" ? { _tag: "TooLarge" } : undefined
        )
      )
    )
  })

const decode = (bytes: Uint8Array, encoding: Encoding): DecodedExport => {
  if (encoding === "protobuf") {
    let message: unknown
    try {
      message = ExportTraceServiceRequest.decode(bytes)
    } catch {
      throw new DecodeFailure("the body is not an OTLP ExportTraceServiceRequest in protobuf")
    }
    return decodeExport(message, "protobuf")
  }
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("utf8")
  // V8's JSON.parse does not recurse (it takes millions of levels), and decodeExport refuses values nested
  // deeper than 32 before it would: no depth scan of the text first (it cost about as much as the parse).
  let parsed: unknown
  try {
    parsed = text.trim() === "" ? {} : JSON.parse(text)
  } catch {
    throw new DecodeFailure("the body is not valid JSON")
  }
  return decodeExport(parsed, "json")
}

const handler = (keys: ApiKeys, traces: Traces) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const encoding = encodingOf(request)
    if (encoding === undefined) {
      return failure(
        415,
        GRPC.invalidArgument,
        "unsupported_media_type",
        "an OTLP export is application/x-protobuf or application/json (in UTF-8)",
        "json"
      )
    }
    const contentEncoding = (request.headers["content-encoding"] ?? "identity").trim().toLowerCase()
    if (contentEncoding !== "gzip" && contentEncoding !== "identity") {
      return failure(
        415,
        GRPC.invalidArgument,
        "unsupported_media_type",
        "Content-Encoding must be gzip or absent",
        encoding
      )
    }
    const token = bearerOf(request)
    const key = token === undefined ? undefined : yield* keys.verify(token)
    if (key === undefined) {
      return failure(
        401,
        GRPC.unauthenticated,
        "unauthorized",
        token === undefined ? "missing bearer API key" : "invalid, expired or revoked API key",
        encoding
      )
    }
    const body = yield* bodyOf(request, contentEncoding === "gzip")
    if (body === undefined) {
      return failure(400, GRPC.invalidArgument, "invalid_request", "the body is not valid gzip", encoding)
    }
    if (body._tag === "TooLarge") {
      return failure(
        413,
        GRPC.resourceExhausted,
        "payload_too_large",
        `an export is at most ${MAX} bytes, sent and inflated`,
        encoding,
        { connection: "close" }
      )
    }
    // Decoded when the receiver has room for it (src/traces/Traces.ts): what a body costs once decoded is bounded there.
    const decoded = Effect.try({
      try: () => decode(body.bytes, encoding),
      catch: (error) =>
        new Refused({
          response: failure(
            400,
            GRPC.invalidArgument,
            "invalid_request",
            error instanceof DecodeFailure ? error.message : "the body does not decode as an OTLP export",
            encoding
          )
        })
    })
    return yield* traces.ingest(key.projectId, body.bytes.length, decoded).pipe(
      Effect.map((outcome) => answer(outcome, encoding)),
      Effect.catchTags({
        Refused: (refused) => Effect.succeed(refused.response),
        TraceExportsBusy: (busy) =>
          Effect.succeed(
            failure(503, GRPC.unavailable, "unavailable", busy.message, encoding, {
              "retry-after": String(BUSY_RETRY_AFTER_S)
            })
          )
      })
    )
  })

export const TraceRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const traces = yield* Traces
    const router = yield* HttpLayerRouter.HttpRouter
    yield* router.add("POST", TRACES_PATH, handler(keys, traces))
  })
)
