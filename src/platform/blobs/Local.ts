/**
 * The default blob store: files under BLOB_DIR (default `${DATA_DIR}/blobs`),
 * behind URLs the gateway itself serves and signs with an HMAC-SHA256 key.
 */

import { createHmac, randomBytes, randomUUID } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, rename, stat, unlink } from "node:fs/promises"
import { dirname, join } from "node:path"
import type { Readable } from "node:stream"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
import { blobRoute, keyOfBlobRoute } from "../../../schema/BlobRoute.js"
import { AppConfig } from "../Config.js"
import { sameSecret } from "../Secrets.js"
import { BlobStore, type SignedRequest, type WriteResult } from "./BlobStore.js"

/**
 * The signature of a local blob URL: HMAC-SHA256 over method, key, expiry
 * (Unix seconds) and, for PUT, the Content-Type the body must carry.
 */
export const signBlobRequest = (
  secret: string,
  request: Omit<SignedRequest, "signature" | "expires"> & { readonly expires: number | string }
): string =>
  createHmac("sha256", secret)
    .update(`${request.method}\n${request.key}\n${request.expires}\n${request.contentType}`)
    .digest("base64url")

/** BLOB_SIGNING_SECRET, or the one in the store, created by whichever gateway comes first. */
const signingSecret = Effect.gen(function* () {
  const configured = yield* AppConfig.blobSigningSecret
  // Its length is checked where the setting is read (src/platform/Config.ts), before the start.
  if (Option.isSome(configured)) return Redacted.value(configured.value)
  const sql = yield* SqlClient.SqlClient
  // One row (id = 1): a concurrent first start inserts nothing, and both read the winner's.
  yield* sql`INSERT INTO blob_signing_secret (id, secret) VALUES (1, ${randomBytes(32).toString("base64url")})
    ON CONFLICT (id) DO NOTHING`
  const rows = yield* sql<{ secret: string }>`SELECT secret FROM blob_signing_secret WHERE id = 1`
  const row = rows[0]
  if (row === undefined) return yield* Effect.dieMessage("no blob signing secret")
  return row.secret
}).pipe(Effect.catchTag("SqlError", Effect.die))

/**
 * Streams `source` into a temporary file, renamed to `target` once complete;
 * past `maxBytes`, or on any failure, the temporary file is removed and the
 * rest of the body discarded (the socket stays up for the 413).
 */
const writeCapped = (tmpDir: string, target: string, source: Readable, maxBytes: number) =>
  Effect.gen(function* () {
    yield* Effect.promise(() =>
      Promise.all([mkdir(tmpDir, { recursive: true }), mkdir(dirname(target), { recursive: true })])
    )
    const tmp = join(tmpDir, randomUUID())
    const file = createWriteStream(tmp)
    // Resolves once the file is closed, so that removing it cannot race its creation.
    const closeFile = Effect.async<void>((resume) => {
      if (file.closed) return resume(Effect.void)
      file.once("close", () => resume(Effect.void))
      file.destroy()
    })
    const received = Effect.async<WriteResult, Error>((resume) => {
      let size = 0
      const detach = () => {
        source.off("data", onData)
        source.off("end", onEnd)
        source.off("error", onError)
        source.off("close", onClose)
      }
      const onData = (chunk: Buffer) => {
        size += chunk.length
        if (size > maxBytes) {
          detach()
          // Discard the rest of the body; the 413 closes the connection.
          source.resume()
          resume(Effect.succeed("too_large"))
          return
        }
        if (!file.write(chunk)) {
          source.pause()
          file.once("drain", () => source.resume())
        }
      }
      const onEnd = () => {
        detach()
        file.end(() => resume(Effect.succeed("written")))
      }
      const onError = (error: Error) => {
        detach()
        resume(Effect.fail(error))
      }
      const onClose = () => {
        if (!source.readableEnded) onError(new Error("the request closed before its body ended"))
      }
      file.once("error", onError)
      source.on("data", onData)
      source.on("end", onEnd)
      source.on("error", onError)
      source.on("close", onClose)
      return Effect.sync(detach)
    })
    return yield* received.pipe(
      Effect.tap(() => closeFile),
      Effect.flatMap((result) =>
        result === "written"
          ? Effect.as(
              Effect.promise(() => rename(tmp, target)),
              result
            )
          : Effect.succeed(result)
      ),
      Effect.onExit((exit) =>
        Exit.isSuccess(exit) && exit.value === "written"
          ? Effect.void
          : Effect.zipRight(
              closeFile,
              Effect.promise(() => unlink(tmp).catch(() => undefined))
            )
      ),
      Effect.orDie
    )
  })

export const layer = Layer.effect(
  BlobStore,
  Effect.gen(function* () {
    const secret = yield* signingSecret
    const blobDir = Option.getOrElse(yield* AppConfig.blobDir, () => "")
    const root = blobDir !== "" ? blobDir : join(yield* AppConfig.dataDir, "blobs")
    const publicUrl = yield* AppConfig.publicUrl
    const tmpDir = join(root, ".tmp")
    const pathOf = (key: string) => join(root, ...key.split("/"))

    const sign = (method: "PUT" | "GET", key: string, contentType: string, seconds: number) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const expires = Math.floor(now / 1000) + seconds
        const signature = signBlobRequest(secret, { method, key, expires, contentType })
        return {
          url: `${publicUrl}${blobRoute(key)}?expires=${expires}&signature=${signature}`,
          expiresAt: new Date(expires * 1000)
        }
      })

    const verify = (request: SignedRequest) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (!/^\d{1,12}$/.test(request.expires) || Number(request.expires) * 1000 <= now) return false
        return sameSecret(request.signature, signBlobRequest(secret, request))
      })

    /** Absent is none; any other failure (permissions, I/O) is a fault of ours. */
    const fileSize = (key: string) =>
      Effect.promise(() =>
        stat(pathOf(key)).then(
          (stats) => (stats.isFile() ? Option.some({ size: stats.size }) : Option.none()),
          (error: NodeJS.ErrnoException) => {
            if (error.code === "ENOENT" || error.code === "ENOTDIR") return Option.none()
            throw error
          }
        )
      )

    const read = (key: string) =>
      Effect.map(fileSize(key), (found) =>
        Option.map(found, ({ size }) => ({
          size,
          body: NodeStream.fromReadable(
            () => createReadStream(pathOf(key)),
            (error) => error
          ).pipe(Stream.orDie)
        }))
      )

    return BlobStore.of({
      presignUpload: (key, contentType, seconds) => sign("PUT", key, contentType, seconds),
      presignDownload: (key, seconds) => sign("GET", key, "", seconds),
      stat: fileSize,
      remove: (key) =>
        Effect.promise(() =>
          unlink(pathOf(key)).catch((error: NodeJS.ErrnoException) => {
            if (error.code !== "ENOENT" && error.code !== "ENOTDIR") throw error
          })
        ),
      publicUrl: (key) => `${publicUrl}${blobRoute(key)}`,
      keyOfPublicUrl: (url) =>
        url.startsWith(`${publicUrl}/`) ? keyOfBlobRoute(url.slice(publicUrl.length)) : undefined,
      served: Option.some({
        verify,
        write: (key, source, maxBytes) => writeCapped(tmpDir, pathOf(key), source, maxBytes),
        read
      })
    })
  })
)
