/** Shared by the attachment suites (local store and S3): the wire shapes and raw uploads. */

import { randomBytes } from "node:crypto"
import { request } from "node:http"
import { expect } from "vitest"
import { ISO_MS } from "./helpers.js"
import type { Reply } from "./layers.js"

export const UPLOAD = "/files/attachments/generate-presigned-upload-url"
export const DOWNLOAD = "/files/attachments/generate-presigned-download-url"
export const CAP = 25 * 1024 * 1024

/** Bytes that are not text: every byte value, and some random ones. */
export const binary = (size = 4096): Buffer =>
  Buffer.concat([Buffer.from(Array.from({ length: 256 }, (_, i) => i)), randomBytes(Math.max(0, size - 256))])

/** The upload answer (docs/api-and-auth.md "Attachments"); its URLs live 15 minutes. */
export const expectUpload = (reply: Reply) => {
  expect(reply.status, reply.text).toBe(200)
  expect(Object.keys(reply.body).sort()).toEqual(["expiresAt", "key", "publicUrl", "signedUrl", "success"])
  expect(reply.body.success).toBe(true)
  expectFifteenMinutes(reply.body.expiresAt)
  return reply.body as { success: true; signedUrl: string; expiresAt: string; publicUrl: string; key: string }
}

export const expectDownload = (reply: Reply) => {
  expect(reply.status, reply.text).toBe(200)
  expect(Object.keys(reply.body).sort()).toEqual(["expiresAt", "key", "signedUrl"])
  expectFifteenMinutes(reply.body.expiresAt)
  return reply.body as { signedUrl: string; expiresAt: string; key: string }
}

const expectFifteenMinutes = (expiresAt: unknown) => {
  expect(expiresAt).toMatch(ISO_MS)
  const minutes = (Date.parse(String(expiresAt)) - Date.now()) / 60_000
  expect(minutes).toBeGreaterThan(14.5)
  expect(minutes).toBeLessThanOrEqual(15)
}

export const put = (url: string, body: Buffer, contentType: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: "PUT", body: new Uint8Array(body), headers: { "content-type": contentType, ...headers } })

export const getBytes = async (url: string) => {
  const response = await fetch(url)
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) }
}

/** A request that declares a body length and sends only its headers: the answer must come before the body. */
export const declareOnly = (url: string, method: string, headers: Record<string, string>): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === "string") responseHeaders.set(name, value)
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: JSON.parse(text), text })
        req.destroy()
      })
    })
    req.on("error", reject)
    req.flushHeaders()
  })

/** The same URL with one character of its `signature` (or `X-Amz-Signature`) changed. */
export const tamperSignature = (url: string, parameter: string): string => {
  const parsed = new URL(url)
  const signature = parsed.searchParams.get(parameter) ?? ""
  const index = Math.floor(signature.length / 2)
  const swapped = signature[index] === "a" ? "b" : "a"
  parsed.searchParams.set(parameter, signature.slice(0, index) + swapped + signature.slice(index + 1))
  return parsed.toString()
}
