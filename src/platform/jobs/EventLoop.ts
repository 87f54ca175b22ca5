/**
 * Lets the event loop run during a long job pass (evaluators, topics placement). The embedded store
 * (PGlite) answers queries without a turn of the event loop, and a pattern
 * match is one synchronous call, so a pass that only computes and queries
 * would hold the loop for its whole length: /healthz and every request would
 * wait (docs/decisions.md "Evaluators").
 */
import { performance } from "node:perf_hooks"
import * as Effect from "effect/Effect"

/** The pass computes this long at least before it pauses. */
export const SLICE_MS = 10
/**
 * After computing for some time the pass pauses a tenth of it (at least a
 * timer's 1 ms, at most 50 ms): requests get several turns of the loop (a
 * request and its answer take a few), and the pass keeps about 90 % of it.
 */
const PAUSE_SHARE = 0.1
const PAUSE_MAX_MS = 50

let lastTurn = performance.now()

/** A pause on a timer (after pending I/O, unlike a microtask) when the pass has computed SLICE_MS since the last. */
export const yieldToEventLoop: Effect.Effect<void> = Effect.suspend(() => {
  const worked = performance.now() - lastTurn
  if (worked < SLICE_MS) return Effect.void
  const pause = Math.min(PAUSE_MAX_MS, Math.max(1, Math.round(worked * PAUSE_SHARE)))
  return Effect.async<void>((resume) => {
    const handle = setTimeout(() => {
      lastTurn = performance.now()
      resume(Effect.void)
    }, pause)
    return Effect.sync(() => clearTimeout(handle))
  })
})
