/**
 * Attachments in an S3 bucket (AWS or any S3-compatible endpoint), selected by
 * S3_BUCKET. Clients PUT and GET straight to the bucket with presigned URLs
 * (SigV4 query signing); the gateway never carries the bytes.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException
} from "@aws-sdk/client-s3"
import { getSignedUrl } from "@aws-sdk/s3-request-presigner"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { BadGateway } from "../../../schema/Errors.js"
import { AppConfig } from "../Config.js"
import { BlobStore } from "./BlobStore.js"

export const layer = (bucket: string) =>
  Layer.scoped(
    BlobStore,
    Effect.gen(function* () {
      const endpoint = yield* AppConfig.s3Endpoint
      const region = yield* AppConfig.s3Region
      const accessKeyId = yield* AppConfig.s3AccessKeyId
      const secretAccessKey = yield* AppConfig.s3SecretAccessKey
      const forcePathStyle = yield* AppConfig.s3ForcePathStyle
      const configuredPublicUrl = yield* AppConfig.s3PublicUrl

      const client = yield* Effect.acquireRelease(
        Effect.sync(
          () =>
            new S3Client({
              region,
              forcePathStyle,
              ...(Option.isSome(endpoint) ? { endpoint: endpoint.value } : {}),
              ...(Option.isSome(accessKeyId) && Option.isSome(secretAccessKey)
                ? {
                    credentials: {
                      accessKeyId: accessKeyId.value,
                      secretAccessKey: Redacted.value(secretAccessKey.value)
                    }
                  }
                : {}),
              // Otherwise the SDK adds a checksum of the (empty) body to every presigned PUT,
              // and the real upload would fail it.
              requestChecksumCalculation: "WHEN_REQUIRED",
              responseChecksumValidation: "WHEN_REQUIRED"
            })
        ),
        (s3) => Effect.sync(() => s3.destroy())
      )

      /** The bucket's own URL, where objects are named (not readable without a signature unless the bucket is public). */
      const base = Option.match(configuredPublicUrl, {
        onSome: (url) => url.replace(/\/$/, ""),
        onNone: () => {
          if (Option.isNone(endpoint)) return `https://${bucket}.s3.${region}.amazonaws.com`
          const url = new URL(endpoint.value)
          const origin = `${url.protocol}//${url.host}${url.pathname.replace(/\/$/, "")}`
          return forcePathStyle ? `${origin}/${bucket}` : `${url.protocol}//${bucket}.${url.host}`
        }
      })

      /**
       * The presigner leaves Content-Type out of the signature by default;
       * signed, the bucket refuses a PUT with any other type (a GET sends none).
       */
      const signableHeaders = new Set(["content-type"])

      const presign = (command: PutObjectCommand | GetObjectCommand, seconds: number) =>
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          // SigV4 dates have whole seconds: the URL expires at signingDate + seconds.
          const signingDate = new Date(Math.floor(now / 1000) * 1000)
          return Effect.map(
            Effect.promise(() => getSignedUrl(client, command, { expiresIn: seconds, signingDate, signableHeaders })),
            (url) => ({ url, expiresAt: new Date(signingDate.getTime() + seconds * 1000) })
          )
        })

      const stat = (key: string) =>
        Effect.tryPromise({
          try: () => client.send(new HeadObjectCommand({ Bucket: bucket, Key: key })),
          catch: (error) => error
        }).pipe(
          Effect.map((head) => Option.some({ size: head.ContentLength ?? 0 })),
          Effect.catchAll((error) => {
            // Without s3:ListBucket, S3 answers a HEAD of a missing key with 403 rather than 404.
            const status = error instanceof S3ServiceException ? error.$metadata.httpStatusCode : undefined
            if (status === 404 || status === 403) return Effect.succeed(Option.none())
            return Effect.logError("the attachment store did not answer a HEAD", error).pipe(
              Effect.zipRight(
                Effect.fail(new BadGateway({ message: "the attachment store did not answer; retry later" }))
              )
            )
          })
        )

      return BlobStore.of({
        presignUpload: (key, contentType, seconds) =>
          presign(new PutObjectCommand({ Bucket: bucket, Key: key, ContentType: contentType }), seconds),
        presignDownload: (key, seconds) => presign(new GetObjectCommand({ Bucket: bucket, Key: key }), seconds),
        stat,
        // S3 answers 204 for a key that is not there: deleting is idempotent.
        remove: (key) =>
          Effect.tryPromise({
            try: () => client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key })),
            catch: (error) => error
          }).pipe(
            Effect.asVoid,
            Effect.catchAll((error) =>
              Effect.logError("the attachment store did not answer a DELETE", error).pipe(
                Effect.zipRight(
                  Effect.fail(new BadGateway({ message: "the attachment store did not answer; retry later" }))
                )
              )
            )
          ),
        // Keys are URL-safe by construction (Files), so they go into the URL as they are.
        publicUrl: (key) => `${base}/${key}`,
        keyOfPublicUrl: (url) => {
          if (!url.startsWith(`${base}/`)) return undefined
          const key = url.slice(base.length + 1)
          return /[?#]/.test(key) ? undefined : key
        },
        served: Option.none()
      })
    })
  )
