import type { Readable } from "node:stream"
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type * as Stream from "effect/Stream"
import type { BadGateway } from "../../../schema/Errors.js"

export interface SignedUrl {
  readonly url: string
  /** When the URL stops working (whole seconds). */
  readonly expiresAt: Date
}

/** A signed request to the gateway's own blob routes, as it arrived. */
export interface SignedRequest {
  readonly method: "PUT" | "GET"
  readonly key: string
  readonly expires: string
  readonly signature: string
  /** The media type of the body (PUT); "" for GET. */
  readonly contentType: string
}

export type WriteResult = "written" | "too_large"

/** What the gateway needs to serve a store's signed URLs itself (the local store). */
export interface ServedBlobs {
  /** True when the signature is the store's for this request and the URL has not expired. */
  readonly verify: (request: SignedRequest) => Effect.Effect<boolean>
  /** Streams `source` to `key`, at most `maxBytes`; past that nothing is kept. */
  readonly write: (key: string, source: Readable, maxBytes: number) => Effect.Effect<WriteResult>
  readonly read: (
    key: string
  ) => Effect.Effect<Option.Option<{ readonly size: number; readonly body: Stream.Stream<Uint8Array> }>>
}

/**
 * Where attachments live. Keys are made by the Files use case (URL-safe,
 * scoped to project and workspace); the store signs URLs for them.
 */
export interface BlobStoreShape {
  /** A URL to PUT `key` to, with exactly `contentType`, for `seconds`. */
  readonly presignUpload: (key: string, contentType: string, seconds: number) => Effect.Effect<SignedUrl>
  /** A URL to GET `key` from, for `seconds`. */
  readonly presignDownload: (key: string, seconds: number) => Effect.Effect<SignedUrl>
  /** The stored object's size, or none when it is absent; BadGateway when the store does not answer. */
  readonly stat: (key: string) => Effect.Effect<Option.Option<{ readonly size: number }>, BadGateway>
  /** Deletes the stored object (absent already: done); BadGateway when the store does not answer. */
  readonly remove: (key: string) => Effect.Effect<void, BadGateway>
  /** An unsigned URL naming `key`: what a download request may give as `url`. */
  readonly publicUrl: (key: string) => string
  /** The key named by a URL `publicUrl` made, or undefined. */
  readonly keyOfPublicUrl: (url: string) => string | undefined
  /** Present when the gateway serves the signed URLs itself. */
  readonly served: Option.Option<ServedBlobs>
}

export class BlobStore extends Context.Tag("svc/BlobStore")<BlobStore, BlobStoreShape>() {}
