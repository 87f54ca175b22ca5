import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { workspaceSegment } from "../../../src/files/Files.js"
import { signBlobRequest } from "../../../src/platform/blobs/Local.js"
import {
  binary,
  CAP,
  DOWNLOAD,
  declareOnly,
  expectDownload,
  expectUpload,
  getBytes,
  put,
  tamperSignature,
  UPLOAD
} from "../../support/files-helpers.js"
import { expectError, rawRequest } from "../../support/helpers.js"
import {
  admin,
  asUser,
  call,
  createProject,
  type StoreUnderTest,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"

const PUBLIC_URL = "https://gateway.example.test"

describe.each(stores)("attachments on the local store ($name)", (storeUnderTest) => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-blobs-"))
  const handle = useGateway(storeUnderTest, { BLOB_DIR: blobDir, PUBLIC_URL })
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  let alice: UserClient
  let bob: UserClient
  let stranger: UserClient

  afterAll(() => rmSync(blobDir, { recursive: true, force: true }))

  /** The gateway signs URLs for PUBLIC_URL; the test reaches the same path on its own port. */
  const local = (url: string) => {
    expect(url.startsWith(`${PUBLIC_URL}/`), url).toBe(true)
    return `${handle.current.baseUrl}${url.slice(PUBLIC_URL.length)}`
  }
  const secret = async () =>
    (await handle.current.sql<{ secret: string }>("SELECT secret FROM blob_signing_secret"))[0]?.secret ?? ""
  /** A URL signed the way the store signs, with any expiry. */
  const signed = async (method: "PUT" | "GET", key: string, expires: number, contentType = "") => {
    const signature = signBlobRequest(await secret(), { method, key, expires, contentType })
    return `${handle.current.baseUrl}/v1/blobs/${key}?expires=${expires}&signature=${signature}`
  }
  const uploaded = async (client: UserClient, filename: string, bytes: Buffer, contentType: string) => {
    const upload = expectUpload(await client("POST", UPLOAD, { body: { filename } }))
    const stored = await put(local(upload.signedUrl), bytes, contentType)
    expect(stored.status, await stored.text()).toBe(200)
    return upload
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "files")
    other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    bob = asUser(handle.current, project.api_key, "bob", "ws-2")
    stranger = asUser(handle.current, other.api_key, "alice", "ws-1")
  })

  it("uploads real bytes and downloads them back with their content type, by key and by url", async () => {
    const bytes = binary(10_000)
    const upload = await uploaded(alice, "Résumé scan 2026.PNG", bytes, "image/png")
    expect(upload.key).toMatch(
      new RegExp(`^${project.project_id}/${workspaceSegment("ws-1")}/[0-9A-Z]{26}/Resume_scan_2026\\.png$`)
    )
    expect(upload.publicUrl).toBe(`${PUBLIC_URL}/p/${project.project_id}/v1/blobs/${upload.key}`)
    expect(readFileSync(join(blobDir, ...upload.key.split("/")))).toEqual(bytes)

    const byKey = expectDownload(await alice("POST", DOWNLOAD, { body: { key: upload.key } }))
    expect(byKey.key).toBe(upload.key)
    const fetched = await getBytes(local(byKey.signedUrl))
    expect(fetched.status).toBe(200)
    expect(fetched.headers.get("content-type")).toBe("image/png")
    expect(fetched.bytes).toEqual(bytes)

    const byUrl = expectDownload(await alice("POST", DOWNLOAD, { body: { url: upload.publicUrl } }))
    expect(byUrl.key).toBe(upload.key)
    expect((await getBytes(local(byUrl.signedUrl))).bytes).toEqual(bytes)
    // The public URL itself carries no signature.
    expectError(await call(local(upload.publicUrl), "GET", ""), 403)
  })

  it("keeps the signing secret in the store: one row, and the URLs verify with it", async () => {
    const rows = await handle.current.sql("SELECT secret FROM blob_signing_secret")
    expect(rows).toHaveLength(1)
    const upload = await uploaded(alice, "notes.md", Buffer.from("# hi\n"), "text/markdown")
    const url = await signed("GET", upload.key, Math.floor(Date.now() / 1000) + 60)
    const fetched = await getBytes(url)
    expect(fetched.status).toBe(200)
    expect(fetched.headers.get("content-type")).toBe("text/markdown")
    expect(fetched.bytes.toString()).toBe("# hi\n")
  })

  it("refuses an expired URL with 403, for GET and PUT", async () => {
    const upload = await uploaded(alice, "a.txt", Buffer.from("text"), "text/plain")
    const past = Math.floor(Date.now() / 1000) - 1
    expectError(await call(await signed("GET", upload.key, past), "GET", ""), 403)
    const putPast = await put(await signed("PUT", upload.key, past, "text/plain"), Buffer.from("x"), "text/plain")
    expect(putPast.status).toBe(403)
    expect((await putPast.json()).error).toBe("forbidden")
    expect(readFileSync(join(blobDir, ...upload.key.split("/"))).toString()).toBe("text")
  })

  it("refuses a tampered URL with 403: signature, key, expiry, content type", async () => {
    const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: "photo.jpg" } }))
    const url = local(upload.signedUrl)
    const bytes = binary(1000)
    const refused = async (target: string, contentType = "image/jpeg") => {
      const reply = await put(target, bytes, contentType)
      expect(reply.status, target).toBe(403)
      expect((await reply.json()).error).toBe("forbidden")
    }
    await refused(tamperSignature(url, "signature"))
    await refused(
      url.replace(/\/([0-9A-Z]{26})\//, (_, id: string) => `/${id.slice(0, 25)}${id.endsWith("0") ? "1" : "0"}/`)
    )
    await refused(url.replace(/expires=(\d+)/, (_, n: string) => `expires=${Number(n) + 60}`))
    await refused(url, "image/png")
    await refused(url, "text/plain")
    await refused(url.replace(/\?.*$/, ""))
    // A signature of the right length in characters but not in bytes (é is two UTF-8 bytes).
    const multibyte = new URL(url)
    const signature = multibyte.searchParams.get("signature") ?? ""
    multibyte.searchParams.set("signature", `${signature.slice(0, -1)}é`)
    await refused(multibyte.toString())
    // Not a key at all: refused before any file path is made of it.
    const traversal = await rawRequest(
      `${handle.current.baseUrl}/v1/blobs/..%2F..%2Fetc%2Fpasswd.txt?expires=1&signature=x`,
      {
        method: "GET",
        headers: {},
        body: ""
      }
    )
    expectError(traversal, 403)
    expect(existsSync(join(blobDir, ...upload.key.split("/")))).toBe(false)
    // The genuine URL still works, and a charset parameter does not change the media type.
    const ok = await put(url, bytes, "image/jpeg")
    expect(ok.status).toBe(200)
    const downloadUrl = expectDownload(await alice("POST", DOWNLOAD, { body: { key: upload.key } })).signedUrl
    expectError(await call(tamperSignature(local(downloadUrl), "signature"), "GET", ""), 403)
  })

  it("refuses a body over 25 MB with 413 and keeps nothing, streamed or declared", async () => {
    const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: "big.pdf" } }))
    const url = local(upload.signedUrl)
    const chunked = await rawRequest(url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: Buffer.alloc(CAP + 1, 7),
      chunked: true
    })
    expectError(chunked, 413)
    const declared = await declareOnly(url, "PUT", {
      "content-type": "application/pdf",
      "content-length": String(CAP + 1)
    })
    expectError(declared, 413)
    expect(existsSync(join(blobDir, ...upload.key.split("/")))).toBe(false)
    expect(readdirSync(join(blobDir, ".tmp"))).toEqual([])
    expectError(await alice("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    // A GET signed for a key with no file behind it.
    expectError(await call(await signed("GET", upload.key, Math.floor(Date.now() / 1000) + 60), "GET", ""), 404)
    // A chunked body under the cap is stored.
    const small = await rawRequest(url, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: Buffer.alloc(100_000, 8),
      chunked: true
    })
    expect(small.status, small.text).toBe(200)
    expect(readFileSync(join(blobDir, ...upload.key.split("/")))).toEqual(Buffer.alloc(100_000, 8))
  })

  it("accepts only the listed types, by extension", async () => {
    for (const filename of [
      "a.png",
      "a.jpeg",
      "a.JPG",
      "a.gif",
      "a.webp",
      "a.pdf",
      "a.txt",
      "a.md",
      "a.csv",
      "a.json"
    ]) {
      expectUpload(await alice("POST", UPLOAD, { body: { filename } }))
    }
    for (const filename of ["a.exe", "a.svg", "a.html", "noextension", "a.png.exe", "a.", "dir/a.png/"]) {
      expectError(await alice("POST", UPLOAD, { body: { filename } }), 400, "filename")
    }
    expectError(await alice("POST", UPLOAD, { body: {} }), 400, "filename")
  })

  it("takes a filename of 1 to 255 characters, sanitized into the key", async () => {
    const longest = `${"n".repeat(251)}.txt`
    const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: longest } }))
    expect(upload.key.endsWith(`/${"n".repeat(100)}.txt`)).toBe(true)
    expectError(await alice("POST", UPLOAD, { body: { filename: `${"n".repeat(252)}.txt` } }), 400, "filename")
    expectError(await alice("POST", UPLOAD, { body: { filename: "" } }), 400, "filename")
    expectError(await alice("POST", UPLOAD, { body: { filename: "a\u0000b.txt" } }), 400, "filename")
    const odd = expectUpload(await alice("POST", UPLOAD, { body: { filename: "../../x y?.csv" } }))
    expect(odd.key.endsWith("/x_y_.csv")).toBe(true)
    const bare = expectUpload(await alice("POST", UPLOAD, { body: { filename: ".csv" } }))
    expect(bare.key.endsWith("/file.csv")).toBe(true)
  })

  it("answers 404 for a key of another workspace or project, 400 for a malformed key or url", async () => {
    const upload = await uploaded(alice, "mine.json", Buffer.from("{}"), "application/json")
    expectError(await bob("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    expectError(await bob("POST", DOWNLOAD, { body: { url: upload.publicUrl } }), 404)
    expectError(await stranger("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    expectError(await alice("POST", DOWNLOAD, { body: { key: "../../etc/passwd" } }), 400, "key")
    expectError(await alice("POST", DOWNLOAD, { body: { key: upload.key.replace(".json", ".exe") } }), 400, "key")
    expectError(await alice("POST", DOWNLOAD, { body: { url: "https://elsewhere.example/x.png" } }), 400, "url")
    expectError(await alice("POST", DOWNLOAD, { body: { url: `${upload.publicUrl}?x=1` } }), 400, "url")
    expectError(await alice("POST", DOWNLOAD, { body: {} }), 400)
    expectError(await alice("POST", DOWNLOAD, { body: { key: "" } }), 400)
  })

  it("works with a JWT on the frontend base URL, in the JWT's workspace", async () => {
    const token = await alice("POST", "/auth/tokens")
    expect(token.status, token.text).toBe(200)
    const front = (path: string, body: unknown) =>
      call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1${path}`, {
        body,
        headers: { authorization: `Bearer ${token.body.token}` }
      })
    const upload = expectUpload(await front(UPLOAD, { filename: "chart.webp" }))
    expect(upload.key.startsWith(`${project.project_id}/${workspaceSegment("ws-1")}/`)).toBe(true)
    const bytes = binary(2048)
    expect((await put(local(upload.signedUrl), bytes, "image/webp")).status).toBe(200)
    // The same user and workspace with an API key sees it; another workspace does not.
    const download = expectDownload(await alice("POST", DOWNLOAD, { body: { key: upload.key } }))
    expect((await getBytes(local(download.signedUrl))).bytes).toEqual(bytes)
    expectError(await bob("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    // A JWT of this project is not a credential for another project's URL.
    expectError(
      await call(handle.current.baseUrl, "POST", `/p/${other.project_id}/v1${UPLOAD}`, {
        body: { filename: "x.png" },
        headers: { authorization: `Bearer ${token.body.token}` }
      }),
      401
    )
  })

  it("after a claim, the new owner downloads the anonymous user's attachments; others still cannot", async () => {
    const session = await call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/anonymous`)
    expect(session.status, session.text).toBe(200)
    const anonymous: UserClient = (method, path, options = {}) =>
      call(handle.current.baseUrl, method, `/p/${project.project_id}/v1${path}`, {
        ...options,
        headers: { authorization: `Bearer ${session.body.access_token}`, ...options.headers }
      })
    const upload = await uploaded(anonymous, "before-signup.txt", Buffer.from("draft"), "text/plain")
    const owner = asUser(handle.current, project.api_key, "claimer", "ws-claimer")
    expectError(await owner("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
    const claimed = await owner("POST", "/threads/claim", { body: { refresh_token: session.body.refresh_token.token } })
    expect(claimed.status, claimed.text).toBe(200)
    const download = expectDownload(await owner("POST", DOWNLOAD, { body: { key: upload.key } }))
    expect((await getBytes(local(download.signedUrl))).bytes.toString()).toBe("draft")
    // Another workspace of the project is still refused.
    expectError(await alice("POST", DOWNLOAD, { body: { key: upload.key } }), 404)
  })

  it("works for an anonymous session, from an allowed browser origin (CORS on the frontend URL)", async () => {
    const origin = "https://app.example.test"
    const set = await admin(handle.current)("PUT", `/projects/${project.project_id}/origins`, { origins: [origin] })
    expect(set.status, set.text).toBe(200)
    const session = await call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/anonymous`)
    expect(session.status, session.text).toBe(200)
    const front = (path: string, body: unknown) =>
      call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1${path}`, {
        body,
        headers: { authorization: `Bearer ${session.body.access_token}`, origin }
      })
    const upload = expectUpload(await front(UPLOAD, { filename: "table.csv" }))
    const url = local(upload.signedUrl)
    const preflight = await fetch(url, {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "PUT", "access-control-request-headers": "content-type" }
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get("access-control-allow-methods")).toContain("PUT")
    const stored = await put(url, Buffer.from("a,b\n1,2\n"), "text/csv", { origin })
    expect(stored.status).toBe(200)
    expect(stored.headers.get("access-control-allow-origin")).toBe(origin)
    expect((await put(url, Buffer.from("x"), "text/csv", { origin: "https://evil.example" })).status).toBe(403)

    const download = expectDownload(await front(DOWNLOAD, { url: upload.publicUrl }))
    const fetched = await getBytes(local(download.signedUrl))
    expect(fetched.bytes.toString()).toBe("a,b\n1,2\n")
    expect(fetched.headers.get("content-type")).toBe("text/csv")
    // The anonymous user is its own workspace: the API-key user's files are not its own.
    const mine = await uploaded(alice, "private.txt", Buffer.from("secret"), "text/plain")
    expectError(await front(DOWNLOAD, { key: mine.key }), 404)
    // A URL signed for one project is refused under another project's base URL.
    const elsewhere = url.replace(`/p/${project.project_id}/`, `/p/${other.project_id}/`)
    expect((await put(elsewhere, Buffer.from("x"), "text/csv")).status).toBe(403)
  })
})

describe("attachments with BLOB_SIGNING_SECRET (pglite)", () => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-blobs-"))
  const SECRET = "a-configured-secret-of-at-least-32-chars"
  // The embedded store is always first.
  const handle = useGateway(stores[0] as StoreUnderTest, {
    BLOB_DIR: blobDir,
    BLOB_SIGNING_SECRET: SECRET
  })
  afterAll(() => rmSync(blobDir, { recursive: true, force: true }))

  it("signs with the configured secret and stores none", async () => {
    const project = await createProject(handle.current, "configured")
    const alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: "x.txt" } }))
    const url = new URL(upload.signedUrl)
    const expires = url.searchParams.get("expires") ?? ""
    expect(url.searchParams.get("signature")).toBe(
      signBlobRequest(SECRET, { method: "PUT", key: upload.key, expires, contentType: "text/plain" })
    )
    const stored = await put(
      `${handle.current.baseUrl}${url.pathname}${url.search}`,
      Buffer.from("hello"),
      "text/plain"
    )
    expect(stored.status).toBe(200)
    expect(await handle.current.sql("SELECT secret FROM blob_signing_secret")).toEqual([])
  })
})
