/** A local webhook receiver (node:http) and an independent Standard Webhooks verifier, for the webhook tests. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
}

/** How the receiver answers a request: a status, or "hang" (never answers). */
export type Answer = number | "hang"

export const startReceiver = async () => {
  const received: Array<Received> = []
  const answers = new Map<string, Answer>()
  const hanging: Array<http.ServerResponse> = []
  const server = http.createServer((request, response) => {
    let body = ""
    request.on("data", (chunk: Buffer) => {
      body += chunk.toString()
    })
    request.on("end", () => {
      const path = request.url ?? "/"
      received.push({ path, headers: request.headers, body })
      const answer = answers.get(path) ?? 204
      if (answer === "hang") hanging.push(response)
      else response.writeHead(answer).end(answer >= 400 ? "x".repeat(64 * 1024) : "")
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  const port = (server.address() as AddressInfo).port
  return {
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    received,
    at: (path: string) => received.filter((entry) => entry.path === path),
    answer: (path: string, answer: Answer) => answers.set(path, answer),
    close: async () => {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((done) => server.close(() => done()))
    }
  }
}
export type Receiver = Awaited<ReturnType<typeof startReceiver>>

/**
 * Verifies a delivery the Standard Webhooks way, written apart from the
 * gateway's signer (WebCrypto, not node:crypto's createHmac): the secret's
 * base64 after `whsec_` is the key, the content `{id}.{timestamp}.{body}`.
 */
export const verifySignature = async (secret: string, received: Received): Promise<boolean> => {
  const id = received.headers["webhook-id"]
  const timestamp = received.headers["webhook-timestamp"]
  const signatures = received.headers["webhook-signature"]
  if (typeof id !== "string" || typeof timestamp !== "string" || typeof signatures !== "string") return false
  const keyBytes = Uint8Array.from(atob(secret.replace(/^whsec_/, "")), (c) => c.charCodeAt(0))
  const key = await crypto.subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"])
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${id}.${timestamp}.${received.body}`))
  const expected = btoa(String.fromCharCode(...new Uint8Array(mac)))
  return signatures.split(" ").some((entry) => entry === `v1,${expected}`)
}
