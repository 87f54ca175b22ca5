/**
 * An S3 store for a suite: s3rver (an S3 implementation that checks SigV4
 * signatures and expiry) on a free port, with the bucket the gateway is
 * given, and an SDK client to look at what it holds. Call at the top level
 * of a test file: its hooks run before any suite's gateway starts.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import S3rver from "@20minutes/s3rver"
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3"
import { afterAll, beforeAll } from "vitest"

export const BUCKET = "attachments"

export interface S3Fake {
  /** The gateway's S3_* configuration; S3_ENDPOINT is set once s3rver listens (before the suites' hooks). */
  readonly env: Record<string, string>
  /** An SDK client on s3rver (once it listens). */
  readonly client: () => S3Client
  /** Whether s3rver holds `key`. */
  readonly exists: (key: string) => Promise<boolean>
}

export const useS3rver = (): S3Fake => {
  const directory = mkdtempSync(join(tmpdir(), "svc-s3rver-"))
  /**
   * The bucket is made by s3rver at start: s3rver 4 canonicalizes a bucket-only
   * path as `/attachments` where SDK v3 signs `/attachments/`, so CreateBucket
   * from the client fails its signature check (object requests are unaffected).
   */
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET, configs: [] }]
  })
  const env: Record<string, string> = {
    S3_BUCKET: BUCKET,
    S3_REGION: "us-east-1",
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
    S3_FORCE_PATH_STYLE: "true"
  }
  let s3: S3Client | undefined
  const client = () => {
    if (s3 === undefined) throw new Error("s3rver is not listening yet")
    return s3
  }

  beforeAll(async () => {
    const { port } = await server.run()
    env.S3_ENDPOINT = `http://127.0.0.1:${port}`
    s3 = new S3Client({
      region: "us-east-1",
      endpoint: env.S3_ENDPOINT,
      forcePathStyle: true,
      credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
      requestChecksumCalculation: "WHEN_REQUIRED"
    })
  })

  afterAll(async () => {
    s3?.destroy()
    await server.close()
    rmSync(directory, { recursive: true, force: true })
  })

  const exists = (key: string) =>
    client()
      .send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))
      .then(
        () => true,
        () => false
      )
  return { env, client, exists }
}
