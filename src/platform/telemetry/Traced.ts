/**
 * `fn("Service.method")(body, ...pipeables)`: `Effect.fn` (a span named
 * after the function) while spans are exported, and a plain call (no span,
 * no stack capture) while they are not. `Effect.fn` costs every call even
 * with the tracer off (it captures a stack for the span and wraps the
 * effect): two on the path of `GET /v1/threads/{id}` were about a sixth of
 * its CPU (measured with bench/). With an OTLP endpoint configured,
 * Tracing.ts turns spans on (`exportSpans(true)`) for the gateway's life.
 */
import * as Effect from "effect/Effect"

let spansExported = false

/** Whether calls made from now on create spans. */
export const exportSpans = (on: boolean): void => {
  spansExported = on
}

type Callable = (...args: Array<unknown>) => unknown

const isGeneratorFunction = (body: Callable): boolean => body.constructor?.name === "GeneratorFunction"

const make =
  (name: string) =>
  (body: Callable, ...pipeables: Array<Callable>): Callable => {
    const traced: Callable = Reflect.apply(Effect.fn(name), undefined, [body, ...pipeables])
    const untraced: Callable = isGeneratorFunction(body)
      ? Reflect.apply(Effect.fnUntraced, undefined, [body, ...pipeables])
      : function (this: unknown, ...args: Array<unknown>) {
          let effect = Reflect.apply(body, this, args)
          for (const pipeable of pipeables) effect = Reflect.apply(pipeable, undefined, [effect, ...args])
          return effect
        }
    return function (this: unknown, ...args: Array<unknown>) {
      return Reflect.apply(spansExported ? traced : untraced, this, args)
    }
  }

/** Same call shapes and types as `Effect.fn(name)`. */
export const fn: (name: string) => Effect.fn.Gen & Effect.fn.NonGen = make as unknown as (
  name: string
) => Effect.fn.Gen & Effect.fn.NonGen
