import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Alerts } from "../src/alerts/Alerts.js"
import { ApiKeys } from "../src/auth/ApiKeys.js"
import { Issuers } from "../src/auth/Issuers.js"
import { Sessions } from "../src/auth/Sessions.js"
import { SigningKeys } from "../src/auth/SigningKeys.js"
import { Tokens } from "../src/auth/Tokens.js"
import { Erasure } from "../src/erasure/Erasure.js"
import { Events } from "../src/events/Events.js"
import { Files } from "../src/files/Files.js"
import * as LocalBlobs from "../src/platform/blobs/Local.js"
import { AppConfig } from "../src/platform/Config.js"
import { RateLimiter } from "../src/platform/RateLimiter.js"
import { Readiness } from "../src/platform/Readiness.js"
import { Origins } from "../src/projects/Origins.js"
import { ProjectAdmin } from "../src/projects/ProjectAdmin.js"
import { SdkClients } from "../src/projects/SdkClients.js"
import { Runs } from "../src/runs/Runs.js"
import { Scores } from "../src/scores/Scores.js"
import { Search } from "../src/search/Search.js"
import { Messages } from "../src/threads/Messages.js"
import { Threads } from "../src/threads/Threads.js"
import { Titles } from "../src/titles/Titles.js"
import { Traces } from "../src/traces/Traces.js"
import { Usage } from "../src/usage/Usage.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"

/** Attachments: the S3 bucket named by S3_BUCKET, else files under BLOB_DIR served by the gateway. */
export const BlobStoreLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const bucket = yield* AppConfig.s3Bucket
    if (Option.isNone(bucket)) return LocalBlobs.layer
    // The AWS SDK (about 0.4 s and 25 MB to load) only when S3 is configured.
    const S3Blobs = yield* Effect.promise(() => import("../src/platform/blobs/S3.js"))
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
