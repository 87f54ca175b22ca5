/**
 * Request bodies: the cap on a chunked body, and JSON parsing that refuses
 * nesting past `Limits.body.jsonMaxDepth` before anything recursive sees the
 * value (the schema decoder and its error formatter recurse, and a body of a
 * few thousand nested arrays overflowed the stack: a 500 without
 * credentials).
 */
import type { IncomingMessage } from "node:http"
import * as HttpServerError from "@effect/platform/HttpServerError"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import { Limits } from "../../schema/Limits.js"

/** Whether request headers declare a body: a non-zero Content-Length, or any Transfer-Encoding (chunked). */
export const declaresBody = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
): boolean => {
  const length = headers["content-length"]
  return (length !== undefined && length !== "0") || headers["transfer-encoding"] !== undefined
}

/** The body cap of each request's route, by the Node request it arrived as (see recordBodyCap). */
const bodyCaps = new WeakMap<IncomingMessage, number>()

/**
 * Records the cap of the route a request with a body goes to. Where the
 * server answers 413 before the body's end, it reads (and discards) the
 * rest of a body within a bound proportional to this cap, so that an honest
 * client gets to read the 413 (protocols/NodeServer.ts).
 */
export const recordBodyCap = (request: HttpServerRequest.HttpServerRequest, cap: number): void => {
  bodyCaps.set(NodeHttpServerRequest.toIncomingMessage(request), cap)
}

/** The cap recorded for `request`'s route, if its route is known. */
export const bodyCapOf = (request: IncomingMessage): number | undefined => bodyCaps.get(request)

/** The message of the platform's body cap, which the chunked reader uses too. */
export const MAX_BYTES_EXCEEDED = "maxBytes exceeded"

/** A body that is not JSON this gateway reads; the message and path are the 400's. */
export class JsonBodyError extends Error {
  constructor(
    message: string,
    readonly path = ""
  ) {
    super(message)
  }
}

const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d
const QUOTE = 0x22
const BACKSLASH = 0x5c
/** Longest top-level key named in the issue path of a too-deep body. */
const KEY_PATH_MAX = 64

/**
 * Where JSON text nests arrays and objects deeper than `max`: undefined when
 * it does not, else the top-level key under which it does ("" for none).
 * One pass over the characters, no recursion; malformed text is left to
 * JSON.parse.
 */
export const tooDeepAt = (text: string, max: number): { readonly path: string } | undefined => {
  let depth = 0
  let stringStart = -1
  // The last string at depth 1 of an object body: the key whose value is being read.
  let keyStart = -1
  let keyEnd = -1
  const objectBody = text.trimStart().startsWith("{")
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (stringStart >= 0) {
      if (code === BACKSLASH) i++
      else if (code === QUOTE) {
        if (depth === 1) {
          keyStart = stringStart
          keyEnd = i + 1
        }
        stringStart = -1
      }
    } else if (code === QUOTE) stringStart = i
    else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (++depth > max) return { path: objectBody && keyStart >= 0 ? keyName(text, keyStart, keyEnd) : "" }
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth--
  }
  return undefined
}

const keyName = (text: string, start: number, end: number): string => {
  if (end - start > KEY_PATH_MAX * 6 + 2) return ""
  try {
    const key: unknown = JSON.parse(text.slice(start, end))
    return typeof key === "string" && key.length <= KEY_PATH_MAX ? key : ""
  } catch {
    return ""
  }
}

/** JSON.parse behind the depth check; an empty body reads as null (the schema then names what is missing). */
export const parseJsonBody = (text: string): unknown => {
  if (text === "") return null
  const deep = tooDeepAt(text, Limits.body.jsonMaxDepth)
  if (deep !== undefined) {
    throw new JsonBodyError(
      `request body nests arrays and objects deeper than ${Limits.body.jsonMaxDepth} levels`,
      deep.path
    )
  }
  try {
    return JSON.parse(text)
  } catch {
    throw new JsonBodyError("request body is not valid JSON")
  }
}

const decodeFailure = (request: HttpServerRequest.HttpServerRequest, cause: unknown) =>
  new HttpServerError.RequestError({ request, reason: "Decode", cause })

/**
 * A body sent without Content-Length (chunked) is read under the cap by this
 * reader rather than the platform's: the platform's destroys the request
 * stream, and with it the socket, before a 413 can be written. It reads only
 * when the handler asks for the body (after authentication), once.
 */
const readCapped = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) =>
  Effect.async<Buffer, HttpServerError.RequestError>((resume) => {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) {
        chunks.push(chunk)
        return
      }
      cleanup()
      // The rest is left to the node server (protocols/NodeServer.ts): once the 413
      // is out it discards what remains within its bound, or closes the connection.
      source.pause()
      resume(Effect.fail(decodeFailure(request, new Error(MAX_BYTES_EXCEEDED))))
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks)))
    }
    const onError = (cause: Error) => {
      cleanup()
      resume(Effect.fail(new HttpServerError.RequestError({ request, reason: "Transport", cause })))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    return Effect.sync(cleanup)
  })

const jsonOf = (
  request: HttpServerRequest.HttpServerRequest,
  text: Effect.Effect<string, HttpServerError.RequestError>
) =>
  Effect.flatMap(text, (content) =>
    Effect.try({ try: () => parseJsonBody(content), catch: (cause) => decodeFailure(request, cause) })
  )

/**
 * The request as routes see it: `json` parses through `parseJsonBody`, and
 * with `chunkedCap` the body is read under that cap by this module's reader.
 */
export const withBodyRules = (
  request: HttpServerRequest.HttpServerRequest,
  chunkedCap: number | undefined
): HttpServerRequest.HttpServerRequest => {
  if (chunkedCap === undefined) {
    return Object.create(request, { json: { get: () => jsonOf(request, request.text) } })
  }
  const body = Effect.runSync(Effect.cached(readCapped(request, chunkedCap)))
  const text = Effect.map(body, (bytes) => bytes.toString("utf8"))
  return Object.create(request, {
    text: { value: text },
    json: { value: jsonOf(request, text) },
    arrayBuffer: { value: Effect.map(body, (bytes) => new Uint8Array(bytes).buffer) }
  })
}
