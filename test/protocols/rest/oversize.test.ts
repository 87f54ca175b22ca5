/**
 * Bodies over their route's cap, sent by honest clients (Node's fetch) and by
 * hostile ones (a declared gigabyte, an endless chunked stream, a drip). An
 * honest client that declares its length, or streams a little past the cap,
 * must read its 413 (decisions.md "Wire": bodies over the cap); before, the
 * server cut the connection after 64 KiB of the unread body, and the client
 * saw a reset instead of the answer. A hostile one is still cut off soon.
 * The subject is the transport, not the store: the embedded store only.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { oversizeDiscardBytes, oversizeDiscardMs } from "../../../protocols/NodeServer.js"
import { CAP as ATTACHMENT_CAP, expectUpload, UPLOAD } from "../../support/files-helpers.js"
import { expectError, newThread } from "../../support/helpers.js"
import { asUser, createProject, pglite, type Reply, useGateway } from "../../support/layers.js"
import { type RelayProxy, startRelayProxy } from "../../support/relay-proxy.js"
import { type Ending, floodChunked, openWire, requestHead, sleep, type Wire, within, zerosChunk } from "./wire.js"

const KiB = 1024
const MiB = 1024 * KiB
const DEFAULT_CAP = MiB
const MESSAGE_CAP = 128 * KiB
const PUBLIC_URL = "https://gateway.example.test"

const failureOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  const cause = error.cause instanceof Error ? `: ${error.cause.message} ${errorCodeOf(error.cause)}` : ""
  return `${error.message}${cause}`
}
const errorCodeOf = (error: Error): string => ("code" in error ? String(error.code) : "")

/** One fetch; a failure of the fetch itself (a reset, say) is status 0 with its cause as the text. */
const fetchReply = async (url: string, init: RequestInit): Promise<Reply> => {
  try {
    const response = await fetch(url, init)
    const text = await response.text()
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      body = undefined
    }
    return { status: response.status, headers: response.headers, body, text }
  } catch (error) {
    return { status: 0, headers: new Headers(), body: undefined, text: `fetch failed: ${failureOf(error)}` }
  }
}

/** A JSON-looking body of exactly `bytes` bytes (its content never matters: the cap comes first). */
const jsonOfSize = (bytes: number) => `{"events":[],"pad":"${"x".repeat(bytes - 22)}"}`

/** A body that fetch sends in chunks (no Content-Length): `total` bytes in pieces of 64 KiB. */
const chunkedBody = (total: number) => {
  let sent = 0
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= total) return controller.close()
      const size = Math.min(64 * KiB, total - sent)
      sent += size
      controller.enqueue(new Uint8Array(size).fill(0x20))
    }
  })
}

/** A stream body needs `duplex` (Node's fetch), which the DOM's RequestInit type does not name. */
const STREAMED: RequestInit & { readonly duplex: "half" } = { duplex: "half" }

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`

describe("oversize bodies (pglite)", () => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-oversize-"))
  const handle = useGateway(pglite, { BLOB_DIR: blobDir, PUBLIC_URL })
  let apiKey: string
  /** Honest clients reach the gateway through a relay (a network hop, which passes a reset on as a reset). */
  let relay: RelayProxy
  const identity = () => ({
    authorization: `Bearer ${apiKey}`,
    "svc-user-id": "big-sender",
    "svc-workspace-id": "ws-oversize"
  })
  const url = (path: string) => `${relay.url}/v1${path}`
  const post = (path: string, body: BodyInit, extra: RequestInit = {}) =>
    fetchReply(url(path), {
      method: "POST",
      headers: { ...identity(), "content-type": "application/json" },
      body,
      ...extra
    })

  /** A fresh signed upload URL for a PDF, as a path on the gateway (`/p/{project}/v1/blobs/...?...`). */
  const signedUploadPath = async () => {
    const upload = expectUpload(
      await fetchReply(url(UPLOAD), {
        method: "POST",
        headers: { ...identity(), "content-type": "application/json" },
        body: JSON.stringify({ filename: "big.pdf" })
      })
    )
    expect(upload.signedUrl.startsWith(`${PUBLIC_URL}/`), upload.signedUrl).toBe(true)
    return { path: upload.signedUrl.slice(PUBLIC_URL.length), key: upload.key }
  }

  beforeAll(async () => {
    apiKey = (await createProject(handle.current)).api_key
    relay = await startRelayProxy(handle.current.baseUrl)
  })
  afterAll(async () => {
    await relay.close()
    rmSync(blobDir, { recursive: true, force: true })
  })

  it("Node's fetch PUTting 25 MB + 1 to a signed upload URL reads the 413 and its JSON body", async () => {
    const { path, key } = await signedUploadPath()
    const signedUrl = `${relay.url}${path}`
    const started = Date.now()
    const reply = await fetchReply(signedUrl, {
      method: "PUT",
      headers: { "content-type": "application/pdf" },
      body: new Uint8Array(ATTACHMENT_CAP + 1).fill(7)
    })
    expectError(reply, 413)
    expect(reply.headers.get("connection")).toBe("close")
    expect(Date.now() - started, "the 413 took too long").toBeLessThan(20_000)
    // Nothing kept: no file, no temporary file.
    expect(existsSync(join(blobDir, ...key.split("/")))).toBe(false)
    const tmp = join(blobDir, ".tmp")
    expect(existsSync(tmp) ? readdirSync(tmp) : []).toEqual([])
  }, 60_000)

  it("fetch POST /v1/events over its 1 MiB cap with Content-Length: 413, just over the cap and at twice it", async () => {
    for (const size of [DEFAULT_CAP + 1, DEFAULT_CAP + 300 * KiB, 2 * DEFAULT_CAP]) {
      const reply = await post("/events", jsonOfSize(size))
      expectError(reply, 413)
      expect(reply.body.message, `${size} bytes`).toContain(String(DEFAULT_CAP))
    }
  })

  it("fetch POST of a message over the 128 KiB cap with Content-Length: 413, up to twice the cap", async () => {
    const threadId = await newThread(asUser(handle.current, apiKey, "big-sender", "ws-oversize"))
    for (const size of [MESSAGE_CAP + 1, MESSAGE_CAP + 100 * KiB, 2 * MESSAGE_CAP]) {
      expectError(await post(`/threads/${threadId}/messages`, jsonOfSize(size)), 413)
    }
  })

  it("fetch POST with a chunked body (a stream, no Content-Length) past the cap, within twice it: 413", async () => {
    for (const size of [DEFAULT_CAP + 300 * KiB, 2 * DEFAULT_CAP - 64 * KiB]) {
      const reply = await post("/events", chunkedBody(size), STREAMED)
      expectError(reply, 413)
    }
  })

  it("a client that sends its whole declared 25 MB + 1 before it reads gets the 413, then a FIN, no reset", async () => {
    // Python's http.client, and so `requests`, send the body to its end before they read an answer; 25 MB is
    // more than the kernel's buffers hold, so the server must really read it.
    const { path } = await signedUploadPath()
    const LENGTH = ATTACHMENT_CAP + 1
    const wire = await openWire(handle.current.baseUrl)
    try {
      const head = requestHead("PUT", path, { "content-type": "application/pdf", "content-length": String(LENGTH) })
      let wrote = await wire.write(head)
      for (let sent = 0; wrote && sent < LENGTH; sent += 256 * KiB) {
        wrote = await wire.write(Buffer.alloc(Math.min(256 * KiB, LENGTH - sent), 7))
      }
      const story = () =>
        `wrote ${wire.written()} of ${head.length + LENGTH} bytes; connection ${
          wire.gone()?.detail ?? "open"
        }; received ${JSON.stringify(wire.received().slice(0, 200))}`
      expect(wrote, story()).toBe(true)
      const ending = await Promise.race([wire.letGo, sleep(5_000).then(() => undefined)])
      expect(ending?.how, story()).toBe("end")
      // A reset after the FIN would have lost what the client had not read yet.
      await sleep(300)
      expect(wire.gone()?.how, story()).not.toBe("error")
      expect(wire.status(), story()).toBe(413)
      expect(wire.header("connection")).toBe("close")
      expect(JSON.parse(wire.received().slice(wire.received().indexOf("\r\n\r\n") + 4))).toMatchObject({
        error: "payload_too_large"
      })
    } finally {
      wire.destroy()
    }
  }, 60_000)

  it("a body over twice the cap (declared) is refused and cut at once; the next request is served", async () => {
    const reply = await post("/events", jsonOfSize(4 * DEFAULT_CAP))
    // Either the 413 or a reset: the client may not read an answer sent before its body, and need not.
    if (reply.status !== 0) expectError(reply, 413)
    const next = await post("/events", JSON.stringify({ events: [] }))
    expect(next.status, next.text).not.toBe(413)
  })

  /** Writes body bytes as fast as the connection takes them; how far it got before it stopped taking them. */
  const flood = async (wire: Wire, head: string, limits: { readonly maxBytes: number; readonly maxMs: number }) => {
    const chunk = Buffer.alloc(64 * KiB, 0x20)
    const started = Date.now()
    if (!(await wire.write(head))) return { bytes: 0, ms: 0, stoppedBy: "closed" as const }
    for (;;) {
      if (wire.written() >= limits.maxBytes)
        return { bytes: wire.written(), ms: Date.now() - started, stoppedBy: "bytes" }
      if (Date.now() - started >= limits.maxMs)
        return { bytes: wire.written(), ms: Date.now() - started, stoppedBy: "time" }
      if (!(await wire.write(chunk))) return { bytes: wire.written(), ms: Date.now() - started, stoppedBy: "closed" }
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  it("a client declaring 1 GB: 413 before its body, and the connection is closed promptly", async () => {
    const head = requestHead("POST", "/v1/events", {
      ...identity(),
      "content-type": "application/json",
      "content-length": String(1024 * MiB)
    })
    const flooding = await openWire(handle.current.baseUrl)
    const flooded = await flood(flooding, head, { maxBytes: 256 * MiB, maxMs: 15_000 }).finally(() =>
      flooding.destroy()
    )
    const story = `the client wrote ${(flooded.bytes / MiB).toFixed(1)} MiB in ${seconds(flooded.ms)}, stopped by ${
      flooded.stoppedBy
    }`
    expect(flooded.stoppedBy, story).toBe("closed")
    // The 64 KiB allowance after the answer, and the kernel's buffers on both ends.
    expect(flooded.bytes, story).toBeLessThanOrEqual(8 * MiB)
    expect(flooded.ms, story).toBeLessThan(5_000)
    // A client that sends a little and then reads gets the 413, and then the close.
    const probe = await openWire(handle.current.baseUrl)
    try {
      await probe.write(head)
      await probe.write(Buffer.alloc(16 * KiB, 0x20))
      expect(await within(5_000, () => probe.status() !== undefined), "no answer within 5 s").toBe(true)
      expect(probe.status(), probe.received().slice(0, 300)).toBe(413)
      expect(probe.header("connection")).toBe("close")
      const ending = await Promise.race([probe.letGo, sleep(4_000).then(() => undefined)])
      expect(ending, "the connection was still open 4 s after the 413").toBeDefined()
    } finally {
      probe.destroy()
    }
  }, 40_000)

  it("an endless chunked body on a capped route with an API key: 413, then cut past twice the cap", async () => {
    const head = requestHead("POST", "/v1/events", {
      ...identity(),
      "content-type": "application/json",
      "transfer-encoding": "chunked"
    })
    const flooding = await openWire(handle.current.baseUrl)
    const flooded = await floodChunked(flooding, head, { maxBytes: 256 * MiB, maxMs: 15_000 }).finally(() =>
      flooding.destroy()
    )
    const story = `the client wrote ${(flooded.bytes / MiB).toFixed(1)} MiB in ${seconds(flooded.ms)}, stopped by ${
      flooded.stoppedBy
    }; answer ${flooding.status() ?? "none"}`
    expect(flooded.stoppedBy, story).toBe("closed")
    // Twice the 1 MiB cap read, and the kernel's buffers on both ends.
    expect(flooded.bytes, story).toBeLessThanOrEqual(2 * DEFAULT_CAP + 8 * MiB)
    expect(flooded.ms, story).toBeLessThan(10_000)
    const probe = await openWire(handle.current.baseUrl)
    try {
      await probe.write(head)
      await probe.write(zerosChunk(DEFAULT_CAP + 64 * KiB))
      expect(await within(5_000, () => probe.status() !== undefined), "no answer within 5 s").toBe(true)
      expect(probe.status(), probe.received().slice(0, 300)).toBe(413)
    } finally {
      probe.destroy()
    }
  }, 40_000)

  it("a body within twice the cap that drips: 413 at once, the connection let go within the time bound", async () => {
    const LENGTH = 2 * DEFAULT_CAP
    const wire = await openWire(handle.current.baseUrl)
    try {
      await wire.write(
        requestHead("POST", "/v1/events", {
          ...identity(),
          "content-type": "application/json",
          "content-length": String(LENGTH)
        })
      )
      let ending: Ending | undefined
      void wire.letGo.then((settled) => {
        ending = settled
      })
      // 16 KiB every 100 ms (160 KiB/s): the whole body would take 12.8 s.
      let sent = 0
      while (sent < LENGTH && ending === undefined && Date.now() - wire.startedAt < 15_000) {
        if (!(await wire.write(Buffer.alloc(16 * KiB, 0x20)))) break
        sent += 16 * KiB
        await sleep(100)
      }
      const final = await Promise.race([wire.letGo, sleep(1_000).then(() => undefined)])
      expect(wire.status(), wire.received().slice(0, 300)).toBe(413)
      expect(final, `still open after ${seconds(Date.now() - wire.startedAt)}, ${sent / KiB} KiB sent`).toBeDefined()
      // The server reads on for its time bound (2 s, then 2 MiB at 1 MiB/s: 4 s), not only 64 KiB, and no longer.
      const bound = oversizeDiscardMs(oversizeDiscardBytes(DEFAULT_CAP))
      const story = `let go after ${seconds(final?.afterMs ?? 0)} (${final?.detail}), ${sent / KiB} KiB sent`
      expect(final?.afterMs ?? 0, story).toBeGreaterThanOrEqual(bound - 500)
      expect(final?.afterMs ?? 0, story).toBeLessThan(bound + 5_000)
    } finally {
      wire.destroy()
    }
  }, 30_000)
})
