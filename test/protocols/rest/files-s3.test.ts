/**
 * Attachments on the S3 store, against s3rver (an S3 implementation that
 * checks SigV4 signatures and expiry) started here on a free port.
 */
import { GetObjectCommand, HeadObjectCommand, PutObjectCommand } from "@aws-sdk/client-s3"
import { getSignedUrl } from "@aws-sdk/s3-request-presigner"
import { beforeAll, describe, expect, it } from "vitest"
import {
  binary,
  CAP,
  DOWNLOAD,
  expectDownload,
  expectUpload,
  getBytes,
  put,
  tamperSignature,
  UPLOAD
} from "../../support/files-helpers.js"
import { expectError } from "../../support/helpers.js"
import { asUser, call, createProject, pglite, stores, type UserClient, useGateway } from "../../support/layers.js"
import { BUCKET, useS3rver } from "../../support/s3rver.js"

const s3rver = useS3rver()
const env = s3rver.env

describe.each(stores)("attachments on S3 ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, env)
  let project: { project_id: string; api_key: string }
  let alice: UserClient
  let bob: UserClient
  let stranger: UserClient

  beforeAll(async () => {
    project = await createProject(handle.current, "files")
    const other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    bob = asUser(handle.current, project.api_key, "bob", "ws-2")
    stranger = asUser(handle.current, other.api_key, "alice", "ws-1")
  })

  const uploaded = async (client: UserClient, filename: string, bytes: Buffer, contentType: string) => {
    const upload = expectUpload(await client("POST", UPLOAD, { body: { filename } }))
    const stored = await put(upload.signedUrl, bytes, contentType)
    expect(stored.status, await stored.text()).toBe(200)
    return upload
  }

  it("uploads real bytes to the bucket and downloads them back, by key and by url", async () => {
    const bytes = binary(20_000)
    const upload = await uploaded(alice, "Scan.PNG", bytes, "image/png")
    const signed = new URL(upload.signedUrl)
    expect(`${signed.origin}${signed.pathname}`).toBe(`${env.S3_ENDPOINT}/${BUCKET}/${upload.key}`)
    expect(signed.searchParams.get("X-Amz-Expires")).toBe("900")
    expect(signed.searchParams.get("X-Amz-SignedHeaders")?.split(";")).toContain("content-type")
    expect([...signed.searchParams.keys()].filter((name) => name.toLowerCase().includes("checksum"))).toEqual([])
    expect(upload.publicUrl).toBe(`${env.S3_ENDPOINT}/${BUCKET}/${upload.key}`)
    const head = await s3rver.client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: upload.key }))
    expect(head.ContentType).toBe("image/png")
    expect(head.ContentLength).toBe(bytes.length)

    for (const body of [{ key: upload.key }, { url: upload.publicUrl }]) {
      const download = expectDownload(await alice("POST", DOWNLOAD, { body }))
      expect(download.key).toBe(upload.key)
      expect(new URL(download.signedUrl).searchParams.get("X-Amz-Expires")).toBe("900")
      const fetched = await getBytes(download.signedUrl)
      expect(fetched.status).toBe(200)
      expect(fetched.headers.get("content-type")).toBe("image/png")
      expect(fetched.bytes).toEqual(bytes)
    }
  })

  it("the bucket refuses a tampered URL: signature, key, content type", async () => {
    const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: "doc.pdf" } }))
    const bytes = binary(500)
    expect((await put(tamperSignature(upload.signedUrl, "X-Amz-Signature"), bytes, "application/pdf")).status).toBe(403)
    const otherKey = upload.signedUrl.replace("/doc.pdf?", "/doc2.pdf?")
    expect(otherKey).not.toBe(upload.signedUrl)
    expect((await put(otherKey, bytes, "application/pdf")).status).toBe(403)
    expect((await put(upload.signedUrl, bytes, "text/plain")).status).toBe(403)
    expectError(await alice("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    expect((await put(upload.signedUrl, bytes, "application/pdf")).status).toBe(200)
    const download = expectDownload(await alice("POST", DOWNLOAD, { body: { key: upload.key } }))
    expect((await getBytes(tamperSignature(download.signedUrl, "X-Amz-Signature"))).status).toBe(403)
    expect((await getBytes(download.signedUrl)).bytes).toEqual(bytes)
  })

  it("the bucket refuses an expired URL of the same form", async () => {
    const upload = await uploaded(alice, "old.txt", Buffer.from("old"), "text/plain")
    const signingDate = new Date(Date.now() - 3600_000)
    const command = (kind: "get" | "put") =>
      kind === "get"
        ? new GetObjectCommand({ Bucket: BUCKET, Key: upload.key })
        : new PutObjectCommand({ Bucket: BUCKET, Key: upload.key, ContentType: "text/plain" })
    const expiredGet = await getSignedUrl(s3rver.client(), command("get"), { expiresIn: 900, signingDate })
    expect((await getBytes(expiredGet)).status).toBe(403)
    const expiredPut = await getSignedUrl(s3rver.client(), command("put"), { expiresIn: 900, signingDate })
    expect((await put(expiredPut, Buffer.from("new"), "text/plain")).status).toBe(403)
    const fresh = expectDownload(await alice("POST", DOWNLOAD, { body: { key: upload.key } }))
    expect((await getBytes(fresh.signedUrl)).bytes.toString()).toBe("old")
  })

  it("answers 404 for another workspace's or project's key, 413 for an object over 25 MB", async () => {
    const upload = await uploaded(alice, "data.json", Buffer.from('{"a":1}'), "application/json")
    expectError(await bob("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    expectError(await stranger("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    expectError(await alice("POST", DOWNLOAD, { body: { url: `https://elsewhere.example/${upload.key}` } }), 400, "url")
    // A presigned PUT cannot bound its size: an oversized object is refused when a download is asked for.
    const big = expectUpload(await alice("POST", UPLOAD, { body: { filename: "big.txt" } }))
    await s3rver.client().send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: big.key,
        Body: Buffer.alloc(CAP + 1, 97),
        ContentType: "text/plain"
      })
    )
    expectError(await alice("POST", DOWNLOAD, { body: { key: big.key } }), 413)
  })

  it("works with a JWT on the frontend base URL; the gateway serves no blob routes", async () => {
    const token = await alice("POST", "/auth/tokens")
    expect(token.status, token.text).toBe(200)
    const upload = expectUpload(
      await call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1${UPLOAD}`, {
        body: { filename: "pic.gif" },
        headers: { authorization: `Bearer ${token.body.token}` }
      })
    )
    const bytes = binary(300)
    expect((await put(upload.signedUrl, bytes, "image/gif")).status).toBe(200)
    const download = expectDownload(await alice("POST", DOWNLOAD, { body: { key: upload.key } }))
    expect((await getBytes(download.signedUrl)).bytes).toEqual(bytes)
    expectError(await call(handle.current.baseUrl, "GET", `/v1/blobs/${upload.key}?expires=1&signature=x`), 404)
  })
})

describe("attachments on an S3 endpoint that does not answer", () => {
  // A port nothing listens on: presigning needs no network, the HEAD before a download URL does.
  const handle = useGateway(pglite, { ...env, S3_ENDPOINT: "http://127.0.0.1:9" })

  it("answers 502 bad_gateway for a download URL, not 500", async () => {
    const project = await createProject(handle.current, "s3-down")
    const alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: "notes.txt" } }))
    const reply = await alice("POST", DOWNLOAD, { body: { key: upload.key } })
    expect(reply.status, reply.text).toBe(502)
    expect(reply.body.error).toBe("bad_gateway")
    expect(reply.text).not.toContain("ECONNREFUSED")
  }, 60_000)
})
