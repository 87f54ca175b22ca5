import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { exportSpans } from "./Traced.js"

/**
 * Spans are named where the work is (each use case and repository method is
 * a `fn("Service.method")`, see Traced.ts; @effect/sql names its queries), but
 * nothing exports them yet: until an exporter is configured the tracer is
 * off, so that no request pays for spans that go nowhere (measured with
 * bench/: a span per function and query is part of every request's cost).
 */
export const TracingLive = Layer.merge(
  Layer.setTracerEnabled(false),
  Layer.effectDiscard(Effect.sync(() => exportSpans(false)))
)
