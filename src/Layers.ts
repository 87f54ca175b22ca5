import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Alerts } from "./Alerts.js"
import { ApiKeys } from "./auth/ApiKeys.js"
import { Issuers } from "./auth/Issuers.js"
import { Sessions } from "./auth/Sessions.js"
import { SigningKeys } from "./auth/SigningKeys.js"
import { Tokens } from "./auth/Tokens.js"
import * as LocalBlobs from "./blobs/Local.js"
import { AppConfig } from "./Config.js"
import { Erasure } from "./Erasure.js"
import { Events } from "./Events.js"
import { Files } from "./Files.js"
import { Messages } from "./Messages.js"
import { Origins } from "./Origins.js"
import { ProjectAdmin } from "./ProjectAdmin.js"
import { RateLimiter } from "./RateLimiter.js"
import { Readiness } from "./Readiness.js"
import { Runs } from "./Runs.js"
import { Scores } from "./Scores.js"
import { SdkClients } from "./SdkClients.js"
import { Search } from "./Search.js"
import { Threads } from "./Threads.js"
import { Titles } from "./Titles.js"
import { Traces } from "./Traces.js"
import { Usage } from "./Usage.js"
import { Webhooks } from "./Webhooks.js"

/** Attachments: the S3 bucket named by S3_BUCKET, else files under BLOB_DIR served by the gateway. */
export const BlobStoreLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const bucket = yield* AppConfig.s3Bucket
    if (Option.isNone(bucket)) return LocalBlobs.layer
    // The AWS SDK (about 0.4 s and 25 MB to load) only when S3 is configured.
    const S3Blobs = yield* Effect.promise(() => import("./blobs/S3.js"))
    return S3Blobs.layer(bucket.value)
  })
)

/** Every service the protocols use; each needs only a SqlClient. */
export const ServicesLive = Layer.mergeAll(
  Threads.Default,
  Messages.Default,
  ProjectAdmin.Default,
  ApiKeys.Default,
  SdkClients.Default,
  SigningKeys.Default,
  Sessions.Default,
  RateLimiter.Default,
  Origins.Default,
  Issuers.Default,
  Tokens.Default,
  Usage.Default,
  Runs.Default,
  Traces.Default,
  Search.Default,
  Scores.Default,
  Events.Default,
  Titles.Default,
  Readiness.Default,
  // The same layer the use cases depend on (memoized): one subscriptions cache per gateway.
  Webhooks.Default,
  Alerts.Default,
  Layer.mergeAll(Files.Default, Erasure.Default).pipe(Layer.provideMerge(BlobStoreLive))
)
