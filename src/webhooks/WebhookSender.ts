/**
 * One webhook delivery attempt: the Standard Webhooks headers and signature
 * (docs/decisions.md "Webhooks", Signing), a POST bounded in time (5 s in
 * all) and in what it reads back (4 KB), to an address checked at connect
 * time.
 */
import { createHmac, randomBytes } from "node:crypto"
import { lookup as dnsLookup } from "node:dns"
import * as http from "node:http"
import * as https from "node:https"
import type { LookupFunction } from "node:net"
import { isIP } from "node:net"
import { nonPublicText } from "./WebhookAddress.js"

export const SECRET_PREFIX = "whsec_"
/** A whole attempt (connect, send, answer) gets this long. */
export const ATTEMPT_TIMEOUT_MS = 5_000
/** What is read of an answer at most; the rest is not waited for. */
export const ANSWER_MAX_BYTES = 4_096

/** A new signing secret: `whsec_` + base64 of 24 random bytes (the Standard Webhooks form). */
export const newSecret = (): string => `${SECRET_PREFIX}${randomBytes(24).toString("base64")}`

/** `v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}">`, keyed with the secret's decoded bytes. */
export const sign = (secret: string, id: string, timestampSeconds: number, body: string): string => {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, "base64")
  return `v1,${createHmac("sha256", key).update(`${id}.${timestampSeconds}.${body}`).digest("base64")}`
}

export interface AttemptOutcome {
  /** The answer's status; null when none came. */
  readonly statusCode: number | null
  /** Why the attempt failed; null for a 2xx. */
  readonly error: string | null
  readonly durationMs: number
}

/** A DNS lookup that refuses non-public addresses: the check is on the address connected to. */
const checkedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, "", 0)
    const list = Array.isArray(addresses) ? addresses : []
    for (const entry of list) {
      const refused = nonPublicText(entry.address)
      if (refused === undefined) continue
      return callback(
        Object.assign(new Error(`${hostname} resolves to ${entry.address}, ${refused}`), { code: "EPRIVATE" }),
        "",
        0
      )
    }
    const first = list[0]
    if (first === undefined) return callback(Object.assign(new Error(`${hostname} does not resolve`)), "", 0)
    if (options.all) return callback(null, list)
    return callback(null, first.address, first.family)
  })
}

/**
 * POSTs `body` to `url` signed with `secret` as message `id`. Resolves with
 * the outcome, never rejects: a 2xx is success; anything else (another
 * status, a timeout, a refused address, a network error) is a failure.
 */
export const deliver = (input: {
  readonly url: string
  readonly secret: string
  readonly id: string
  readonly body: string
  readonly nowMs: number
  readonly allowPrivate: boolean
}): Promise<AttemptOutcome> =>
  new Promise((resolve) => {
    const started = performance.now()
    const finish = (statusCode: number | null, error: string | null) =>
      resolve({ statusCode, error, durationMs: Math.round(performance.now() - started) })
    const url = new URL(input.url)
    const host = url.hostname.replace(/^\[|\]$/g, "")
    const refused = input.allowPrivate || isIP(host) === 0 ? undefined : nonPublicText(host)
    if (refused !== undefined) return finish(null, `${host} is ${refused}`)
    const timestamp = Math.floor(input.nowMs / 1000)
    const transport = url.protocol === "https:" ? https : http
    let settled = false
    const request = transport.request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(input.body),
          "user-agent": "svc-gateway-webhooks/1",
          "webhook-id": input.id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": sign(input.secret, input.id, timestamp, input.body)
        },
        ...(input.allowPrivate ? {} : { lookup: checkedLookup }),
        // No connection kept: each attempt stands alone, and a kept socket would skip the address check.
        agent: false,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS)
      },
      (response) => {
        const status = response.statusCode ?? null
        let read = 0
        const done = () => {
          if (settled) return
          settled = true
          response.destroy()
          finish(status, status !== null && status >= 200 && status < 300 ? null : `answered ${status}`)
        }
        response.on("data", (chunk: Buffer) => {
          read += chunk.length
          if (read >= ANSWER_MAX_BYTES) done()
        })
        response.on("end", done)
        response.on("error", done)
        response.on("close", done)
      }
    )
    request.on("error", (error: Error & { code?: string }) => {
      if (settled) return
      settled = true
      finish(
        null,
        error.name === "TimeoutError" || error.name === "AbortError"
          ? `no answer within ${ATTEMPT_TIMEOUT_MS / 1000} s`
          : error.message.slice(0, 300)
      )
    })
    request.end(input.body)
  })
