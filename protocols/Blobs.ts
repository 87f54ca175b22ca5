/**
 * The local blob store's signed URLs (`/v1/blobs/{key}?expires=&signature=`,
 * also under a project's frontend base URL, where its allowed origins apply):
 * PUT stores a body of at most 25 MB, GET streams it back. Not served when
 * attachments go to S3.
 */
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { BLOB_ROUTE_PREFIX } from "../schema/BlobRoute.js"
import { Forbidden, NotFound, PayloadTooLarge } from "../schema/Errors.js"
import { attachmentType } from "../schema/File.js"
import { Limits } from "../schema/Limits.js"
import { parseKey } from "../src/files/Files.js"
import { BlobStore, type ServedBlobs } from "../src/platform/blobs/BlobStore.js"
import { FrontendProject } from "./rest/Frontend.js"

const forbidden = HttpServerResponse.unsafeJson(new Forbidden({ message: "the signature is invalid or has expired" }), {
  status: 403
})

const mediaType = (header: string | undefined): string => (header?.split(";")[0] ?? "").trim().toLowerCase()

const serve = (blobs: ServedBlobs, method: "PUT" | "GET") =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://gateway")
    const key = url.pathname.slice(BLOB_ROUTE_PREFIX.length)
    const parsed = parseKey(key)
    if (parsed === undefined) return forbidden
    const frontend = yield* Effect.serviceOption(FrontendProject)
    if (Option.isSome(frontend) && frontend.value !== parsed.projectId) return forbidden
    const contentType = method === "PUT" ? mediaType(request.headers["content-type"]) : ""
    const signed = yield* blobs.verify({
      method,
      key,
      expires: url.searchParams.get("expires") ?? "",
      signature: url.searchParams.get("signature") ?? "",
      contentType
    })
    if (!signed) return forbidden
    if (method === "PUT") {
      // Signed for the key's own type only, so this holds; checked all the same.
      if (contentType !== attachmentType(key)) return forbidden
      const written = yield* blobs.write(
        key,
        NodeHttpServerRequest.toIncomingMessage(request),
        Limits.attachment.maxBytes
      )
      if (written === "too_large") {
        return HttpServerResponse.unsafeJson(
          new PayloadTooLarge({ message: `an attachment is at most ${Limits.attachment.maxBytes} bytes` }),
          { status: 413, headers: { connection: "close" } }
        )
      }
      return HttpServerResponse.empty({ status: 200 })
    }
    const found = yield* blobs.read(key)
    if (Option.isNone(found)) {
      return HttpServerResponse.unsafeJson(new NotFound({ message: "attachment not found" }), { status: 404 })
    }
    return HttpServerResponse.stream(found.value.body, {
      contentType: attachmentType(key) ?? "application/octet-stream",
      contentLength: found.value.size,
      headers: {
        "cache-control": "private, max-age=900",
        // User content on the gateway's own origin: never sniffed, never run as a page.
        "x-content-type-options": "nosniff",
        "content-security-policy": "default-src 'none'; sandbox"
      }
    })
  })

export const BlobRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* BlobStore
    if (Option.isNone(store.served)) return
    const router = yield* HttpLayerRouter.HttpRouter
    yield* router.add("PUT", `${BLOB_ROUTE_PREFIX}*`, serve(store.served.value, "PUT"))
    yield* router.add("GET", `${BLOB_ROUTE_PREFIX}*`, serve(store.served.value, "GET"))
  })
)
