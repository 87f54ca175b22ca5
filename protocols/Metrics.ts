/**
 * Prometheus metrics of the gateway itself, on `GET /metrics` of the same
 * port (not part of the REST API: no OpenAPI entry). prom-client keeps the
 * figures and renders the exposition format; `collectDefaultMetrics` adds the
 * process figures (CPU, memory, event-loop delay, GC, handles). Figures that
 * src/ owns (the usage flush's backlog, the database pool) are plain values
 * its services expose; they are read when Prometheus scrapes, not per request.
 *
 * Requests are labelled by route template (`/v1/threads/:id`, from the route
 * table), never by raw path: paths hold ids, and unknown paths would make a
 * series each. A path no route serves is `route="unmatched"`.
 */
import { createHash, timingSafeEqual } from "node:crypto"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client"
import { Unauthorized } from "../schema/Errors.js"
import type { PoolStats } from "../src/platform/db/DatabasePool.js"
import type { UsageBacklog } from "../src/usage/Usage.js"

export const METRICS_PATH = "/metrics"

/** METRICS_ENABLED (default true) and METRICS_TOKEN (optional: when set, scrapes need `Authorization: Bearer <token>`). */
export const MetricsConfig = Config.all({
  enabled: Config.boolean("METRICS_ENABLED").pipe(Config.withDefault(true)),
  token: Config.redacted("METRICS_TOKEN").pipe(
    Config.validate({
      message: "METRICS_TOKEN must be at least 16 characters",
      validation: (token) => Redacted.value(token).length >= 16
    }),
    Config.option
  )
})

/**
 * Seconds. From a cached read (a few ms) to a slow title stream; Prometheus'
 * default buckets stop at 10 s and have little below 5 ms.
 */
export const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]

/** What the figures of src/ are read from at scrape time. */
export interface MetricSources {
  readonly usageBacklog: () => UsageBacklog
  /** The PostgreSQL pool's figures; none for the embedded store (one in-process connection, no pool). */
  readonly pool: Option.Option<() => PoolStats>
  /** Log lines dropped since the start because stdout did not keep up (src/platform/telemetry/LogSink.ts). */
  readonly logLinesDropped: () => number
  /** Statements that stored new traces, and the exports they carried (batched under load: src/traces/Traces.ts). */
  readonly traceBatches: () => { readonly batches: number; readonly inputs: number }
}

export interface GatewayMetrics {
  readonly registry: Registry
  /** One request answered: its method, route template, status and duration. */
  readonly record: (method: string, route: string, status: number, seconds: number) => void
}

export const makeMetrics = (sources: MetricSources): GatewayMetrics => {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const labelNames = ["method", "route", "status"] as const
  const durations = new Histogram({
    name: "http_server_request_duration_seconds",
    help: "Requests answered and their time from headers to response sent, by method, route template and status",
    labelNames,
    buckets: DURATION_BUCKETS,
    registers: [registry]
  })
  const jobLabel = ["job"] as const
  new Gauge({
    name: "svc_background_lag_seconds",
    help: "Age of the oldest item a background job has not processed yet (0: nothing waits)",
    labelNames: jobLabel,
    registers: [registry],
    collect() {
      this.set({ job: "usage_flush" }, sources.usageBacklog().lagMs / 1000)
    }
  })
  new Gauge({
    name: "svc_background_pending_items",
    help: "Items waiting for a background job (usage_flush: per-user daily counters not yet written)",
    labelNames: jobLabel,
    registers: [registry],
    collect() {
      this.set({ job: "usage_flush" }, sources.usageBacklog().pending)
    }
  })
  new Gauge({
    name: "svc_background_last_success_timestamp_seconds",
    help: "When a background job last finished with nothing left behind (Unix seconds)",
    labelNames: jobLabel,
    registers: [registry],
    collect() {
      const at = sources.usageBacklog().lastFlushedAt
      if (at !== undefined) this.set({ job: "usage_flush" }, at / 1000)
    }
  })
  new Gauge({
    name: "svc_log_lines_dropped",
    help: "Log lines dropped since the start because stdout's reader did not keep up (16 MiB held at most)",
    registers: [registry],
    collect() {
      this.set(sources.logLinesDropped())
    }
  })
  new Counter({
    name: "svc_otlp_new_trace_statements_total",
    help: "Statements that stored traces new to the store; fewer than the exports they carried when exports were batched under load",
    registers: [registry],
    collect() {
      this.reset()
      this.inc(sources.traceBatches().batches)
    }
  })
  new Counter({
    name: "svc_otlp_new_trace_exports_total",
    help: "Exports whose new traces were stored by those statements",
    registers: [registry],
    collect() {
      this.reset()
      this.inc(sources.traceBatches().inputs)
    }
  })
  if (Option.isSome(sources.pool)) {
    const stats = sources.pool.value
    new Gauge({
      name: "svc_db_pool_connections",
      help: "PostgreSQL pool connections by state (idle, busy)",
      labelNames: ["state"] as const,
      registers: [registry],
      collect() {
        const now = stats()
        this.set({ state: "idle" }, now.idle)
        this.set({ state: "busy" }, now.total - now.idle)
      }
    })
    new Gauge({
      name: "svc_db_pool_max_connections",
      help: "The PostgreSQL pool's size (DATABASE_POOL_MAX)",
      registers: [registry],
      collect() {
        this.set(stats().max)
      }
    })
    new Gauge({
      name: "svc_db_pool_waiting_requests",
      help: "Queries waiting for a free PostgreSQL connection",
      registers: [registry],
      collect() {
        this.set(stats().waiting)
      }
    })
  }
  // One child per label set, kept: a request pays a Map lookup and one observation.
  const children = new Map<string, Histogram.Internal<(typeof labelNames)[number]>>()
  const record = (method: string, route: string, status: number, seconds: number) => {
    const key = `${method} ${status} ${route}`
    let child = children.get(key)
    if (child === undefined) {
      child = durations.labels({ method, route, status: String(status) })
      children.set(key, child)
    }
    child.observe(seconds)
  }
  return { registry, record }
}

const digest = (text: string) => createHash("sha256").update(text).digest()

/** Constant time whatever the lengths: the digests are compared, not the strings. */
const sameToken = (given: string, expected: Redacted.Redacted): boolean =>
  timingSafeEqual(digest(given), digest(Redacted.value(expected)))

const unauthorized = () =>
  HttpServerResponse.unsafeJson(new Unauthorized({ message: "this endpoint needs the metrics bearer token" }), {
    status: 401,
    headers: { "www-authenticate": 'Bearer realm="metrics"' }
  })

/** `GET /metrics`: the exposition text; with a token configured, only for `Authorization: Bearer <token>`. */
export const metricsRoute = (metrics: GatewayMetrics, token: Option.Option<Redacted.Redacted>) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const router = yield* HttpLayerRouter.HttpRouter
      yield* router.add(
        "GET",
        METRICS_PATH,
        Effect.gen(function* () {
          if (Option.isSome(token)) {
            const request = yield* HttpServerRequest.HttpServerRequest
            const header = request.headers.authorization ?? ""
            const given = header.toLowerCase().startsWith("bearer ") ? header.slice(7).trim() : ""
            if (given === "" || !sameToken(given, token.value)) return unauthorized()
          }
          const text = yield* Effect.promise(() => metrics.registry.metrics())
          return HttpServerResponse.text(text, { contentType: metrics.registry.contentType })
        })
      )
    })
  )
