/**
 * The soak's HTTP client: keep-alive connections to the balancer, every
 * attempt recorded (time, operation, status, latency, who answered), and the
 * retries the contract allows: a 503 with Retry-After (after that many
 * seconds), and a connection lost before any answer (including the
 * balancer's own 502: the gateway that had the request went away) for writes
 * whose ids make a second send harmless. Nothing else is retried.
 */
import * as http from "node:http"

export interface Attempt {
  /** Milliseconds since the soak's clock started, at the answer (or the error). */
  readonly at: number
  readonly op: string
  /** 0: no answer (connection refused, reset, timed out). */
  readonly status: number
  readonly ms: number
  readonly retryAfter: boolean
  /** The answer came from HAProxy, not a gateway. */
  readonly balancer: boolean
  readonly error?: string
  /** A reset of a kept-alive connection (the balancer closed it idle, or reset it as its gateway died). */
  readonly staleSocket?: boolean
}

export interface Answer {
  readonly status: number
  readonly body: string
  readonly json: () => Record<string, unknown>
}

export type Outcome =
  | { readonly kind: "answered"; readonly answer: Answer }
  /** No answer we may act on: not retryable (or given up); the write may or may not have been stored. */
  | { readonly kind: "unknown"; readonly reason: string }

// Idle connections are closed after 20 s, before the balancer's 30 s keep-alive timeout.
const agent = new http.Agent({ keepAlive: true, maxSockets: 512, keepAliveMsecs: 1000, timeout: 20_000 })

export class Client {
  readonly attempts: Array<Attempt> = []
  /** Requests sent and not answered yet (not those waiting to be sent again). */
  inFlight = 0
  constructor(
    readonly baseUrl: string,
    readonly clock: () => number,
    readonly maxRetryMs: number
  ) {}

  private once(method: string, path: string, headers: Record<string, string>, body: string | undefined) {
    const url = new URL(path, this.baseUrl)
    return new Promise<
      { status: number; headers: http.IncomingHttpHeaders; body: string } | { error: string; stale: boolean }
    >((resolve) => {
      const request = http.request(
        url,
        {
          method,
          agent,
          headers: {
            ...headers,
            ...(body === undefined
              ? {}
              : { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
          },
          timeout: 80_000
        },
        (response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (c: Buffer) => chunks.push(c))
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks).toString()
            })
          )
          response.on("error", (e) => resolve({ error: `response: ${e.message}`, stale: false }))
        }
      )
      request.on("timeout", () => request.destroy(new Error("timed out")))
      request.on("error", (e: NodeJS.ErrnoException) =>
        resolve({ error: e.code ?? e.message, stale: request.reusedSocket && e.code === "ECONNRESET" })
      )
      request.end(body)
    })
  }

  /** A JSON-RPC error inside a 200 (MCP): recorded as an attempt of its own kind. */
  note(op: string, error: string) {
    const at = this.clock()
    this.attempts.push({ at, op, status: -1, ms: 0, retryAfter: false, balancer: false, error })
  }

  /**
   * One call with the contract's retries. `resendable`: a second send of the
   * same body cannot store twice (client ids), so a connection lost after the
   * request went may be retried too.
   */
  async call(
    op: string,
    method: "GET" | "POST",
    path: string,
    headers: Record<string, string>,
    body: unknown,
    resendable: boolean
  ): Promise<Outcome> {
    const text = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body)
    const started = this.clock()
    for (let attempt = 1; ; attempt++) {
      const t0 = this.clock()
      this.inFlight++
      const result = await this.once(method, path, headers, text).finally(() => {
        this.inFlight--
      })
      const at = this.clock()
      if ("error" in result) {
        this.attempts.push({
          at,
          op,
          status: 0,
          ms: at - t0,
          retryAfter: false,
          balancer: false,
          error: result.error,
          staleSocket: result.stale
        })
        // Refused: nothing was sent. A reset, even of a kept-alive connection, may come after the
        // balancer passed the request on (it resets its client when the gateway dies): only a resendable write.
        const nothingSent = result.error === "ECONNREFUSED"
        if (!nothingSent && !resendable && method !== "GET") return { kind: "unknown", reason: result.error }
        if (at - started > this.maxRetryMs)
          return { kind: "unknown", reason: `gave up after ${attempt}: ${result.error}` }
        await sleep(Math.min(2000, 100 * 2 ** Math.min(attempt, 5)))
        continue
      }
      const balancer = result.headers["x-balancer"] === "haproxy"
      const retryAfter = result.headers["retry-after"]
      this.attempts.push({
        at,
        op,
        status: result.status,
        ms: at - t0,
        retryAfter: retryAfter !== undefined,
        balancer
      })
      if (result.status === 503 && retryAfter !== undefined) {
        if (at - started > this.maxRetryMs) return { kind: "unknown", reason: `gave up after ${attempt} 503s` }
        // At least Retry-After, spread over 2 s more so that the retries of an outage do not arrive at once.
        await sleep(Math.min(Number(retryAfter) || 1, 10) * 1000 + Math.random() * 2000)
        continue
      }
      if (balancer && result.status === 502 && (resendable || method === "GET")) {
        if (at - started > this.maxRetryMs) return { kind: "unknown", reason: `gave up after ${attempt}: balancer 502` }
        await sleep(200)
        continue
      }
      if (balancer && (result.status === 502 || result.status === 504))
        return { kind: "unknown", reason: `balancer ${result.status}` }
      // The gateway could not learn whether the write was stored; one with client ids can be sent again.
      if (!balancer && result.status === 504 && resendable) {
        if (at - started > this.maxRetryMs) return { kind: "unknown", reason: `gave up after ${attempt}: 504` }
        continue
      }
      const answerBody = result.body
      return {
        kind: "answered",
        answer: {
          status: result.status,
          body: answerBody,
          json: () => JSON.parse(answerBody) as Record<string, unknown>
        }
      }
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export const closeClient = () => agent.destroy()
