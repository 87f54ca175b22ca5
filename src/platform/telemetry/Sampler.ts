/**
 * Head sampling for the exported traces (OTEL_TRACES_SAMPLER and
 * OTEL_TRACES_SAMPLER_ARG, the OpenTelemetry spec's names): a trace that is
 * not sampled gets spans that record nothing and are never exported, so a
 * busy gateway can send a share of its traces. A span always follows its
 * local parent's decision (a trace is whole or absent); the samplers differ
 * on a trace's first span in this process:
 *
 * - `always_on` / `always_off` / `traceidratio`: sampled always, never, or
 *   with probability OTEL_TRACES_SAMPLER_ARG (default 1), whatever a caller's
 *   `traceparent` says;
 * - `parentbased_*` (default `parentbased_always_on`): a caller's
 *   `traceparent` decides (its sampled flag); without one, as above.
 */
import { randomBytes } from "node:crypto"
import * as Config from "effect/Config"
import type * as Context from "effect/Context"
import type * as Exit from "effect/Exit"
import type * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"

export interface Sampler {
  readonly root: "always_on" | "always_off" | "traceidratio"
  /** Used by traceidratio: the share of traces kept, 0 to 1. */
  readonly ratio: number
  /** A remote parent (traceparent) decides. */
  readonly parentBased: boolean
}

const SAMPLERS = [
  "always_on",
  "always_off",
  "traceidratio",
  "parentbased_always_on",
  "parentbased_always_off",
  "parentbased_traceidratio"
] as const

export const SamplerConfig: Config.Config<Sampler> = Config.all({
  name: Config.literal(...SAMPLERS)("OTEL_TRACES_SAMPLER").pipe(Config.withDefault("parentbased_always_on")),
  ratio: Config.number("OTEL_TRACES_SAMPLER_ARG").pipe(
    Config.validate({
      message: "OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1",
      validation: (ratio) => ratio >= 0 && ratio <= 1
    }),
    Config.withDefault(1)
  )
}).pipe(
  Config.map(({ name, ratio }) => {
    const parentBased = name.startsWith("parentbased_")
    const root = (parentBased ? name.slice("parentbased_".length) : name) as Sampler["root"]
    return { root, ratio, parentBased }
  })
)

const keepRoot = (sampler: Sampler): boolean =>
  sampler.root === "always_on" ? true : sampler.root === "always_off" ? false : Math.random() < sampler.ratio

const decide = (sampler: Sampler, parent: Option.Option<Tracer.AnySpan>): boolean => {
  if (parent._tag === "None") return keepRoot(sampler)
  if (parent.value._tag === "Span" || sampler.parentBased) return parent.value.sampled
  return keepRoot(sampler)
}

/** A span of a trace that is not sampled: ids for propagation and log lines, nothing recorded. */
class UnsampledSpan implements Tracer.Span {
  readonly _tag = "Span"
  readonly sampled = false
  readonly spanId = randomBytes(8).toString("hex")
  readonly traceId: string
  readonly attributes: ReadonlyMap<string, unknown> = new Map()
  readonly links: ReadonlyArray<Tracer.SpanLink> = []
  status: Tracer.SpanStatus
  constructor(
    readonly name: string,
    readonly parent: Option.Option<Tracer.AnySpan>,
    readonly context: Context.Context<never>,
    startTime: bigint,
    readonly kind: Tracer.SpanKind
  ) {
    this.traceId = parent._tag === "Some" ? parent.value.traceId : randomBytes(16).toString("hex")
    this.status = { _tag: "Started", startTime }
  }
  end(endTime: bigint, exit: Exit.Exit<unknown, unknown>): void {
    this.status = { _tag: "Ended", startTime: this.status.startTime, endTime, exit }
  }
  attribute(): void {}
  event(): void {}
  addLinks(): void {}
}

/** `tracer` for the sampled traces, spans that record nothing for the others. */
export const withSampler = (tracer: Tracer.Tracer, sampler: Sampler): Tracer.Tracer =>
  sampler.root === "always_on" && sampler.parentBased === false
    ? tracer
    : Tracer.make({
        span: (name, parent, context, links, startTime, kind, options) =>
          decide(sampler, parent)
            ? tracer.span(name, parent, context, links, startTime, kind, options)
            : new UnsampledSpan(name, parent, context, startTime, kind),
        context: (f, fiber) => tracer.context(f, fiber)
      })
