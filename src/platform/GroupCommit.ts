/**
 * Group commit under load: up to `maxInFlight` writes of one key run at
 * once, each alone, as without batching; a write that arrives while all of
 * them run gathers with the others that do, and the gathered batch is
 * written together, in one statement, by the next of them to end. So below
 * the limit nothing changes (no wait, the store's parallelism kept), and at
 * the limit N statements (and N commits) become about one per statement's
 * time, each as large as `joins` lets it grow. A write that cannot join the
 * gathering batch (it would make it too large, or it conflicts with a write
 * in it) is written alone at once: batching never holds a write back.
 *
 * Each write is made by a fiber of its own, not by its writer, so a writer
 * that is interrupted (its client went away) neither stops a batch nor
 * leaves the others waiting; its write is made all the same, as an
 * unbatched write already begun would be. Every writer of a batch gets the
 * batch's outcome: its own share of a success, or the failure. A batch of
 * several that fails is written again one input at a time, so that one
 * input's fault (a value the store refuses) fails only its own write.
 */
import type * as Cause from "effect/Cause"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

interface Member<In, Out, E> {
  readonly input: In
  readonly done: Deferred.Deferred<Out, E>
}

interface KeyState<In, Out, E, S> {
  /** Writes of the key running now. */
  inFlight: number
  /** The batch gathering behind them. */
  queue: Array<Member<In, Out, E>>
  /** What the queue's inputs come to, for `joins` (none while it is empty). */
  size: S | undefined
}

export interface GroupCommitOptions<K, In, Out, E, R, S> {
  /** Writes of one key that run at once before later ones gather. */
  readonly maxInFlight: number
  /** The size of a batch of one input. */
  readonly sizeOf: (input: In) => S
  /** The size of a batch with `input` added, or none when it may not join (too large, or in conflict). */
  readonly joins: (size: S, input: In) => S | undefined
  /** Writes a batch (in arrival order) and answers each input's share, in the same order. */
  readonly write: (key: K, inputs: ReadonlyArray<In>) => Effect.Effect<ReadonlyArray<Out>, E, R>
  /**
   * Whether a batch of several that failed so is written again one input at
   * a time (a fault of one input's, not of the store's or of the moment:
   * those would only fail again, once per input).
   */
  readonly splitOnFailure: (cause: Cause.Cause<E>) => boolean
}

export interface GroupCommit<K, In, Out, E, R> {
  /** Writes `input`, alone or with others of its key: its share of the outcome. */
  readonly submit: (key: K, input: In) => Effect.Effect<Out, E, R>
  /** Statements written and inputs they carried, since the start. */
  readonly stats: () => { readonly batches: number; readonly inputs: number }
}

export const makeGroupCommit = <K, In, Out, E, R, S>(
  options: GroupCommitOptions<K, In, Out, E, R, S>
): GroupCommit<K, In, Out, E, R> => {
  const states = new Map<K, KeyState<In, Out, E, S>>()
  let batches = 0
  let inputs = 0

  /** A statement: counted as it starts. */
  const write = (key: K, batch: ReadonlyArray<In>) =>
    Effect.suspend(() => {
      batches += 1
      return options.write(key, batch)
    })

  /** Each input's share of a write's outcome. */
  const deliver = (batch: ReadonlyArray<Member<In, Out, E>>, exit: Exit.Exit<ReadonlyArray<Out>, E>) =>
    Effect.forEach(
      batch,
      (member, i) =>
        Deferred.done(
          member.done,
          Exit.flatMap(exit, (outs) => {
            const out = outs[i]
            return out === undefined
              ? Exit.die(new Error("a batch's write answered fewer shares than inputs"))
              : Exit.succeed(out)
          })
        ),
      { discard: true }
    )

  /** Writes a batch; one of several that fails for one input's fault, again one input at a time (side by side). */
  const writeBatch = (key: K, batch: ReadonlyArray<Member<In, Out, E>>): Effect.Effect<void, never, R> =>
    Effect.flatMap(
      Effect.exit(
        write(
          key,
          batch.map((member) => member.input)
        )
      ),
      (exit) =>
        Exit.isFailure(exit) && batch.length > 1 && !Exit.isInterrupted(exit) && options.splitOnFailure(exit.cause)
          ? Effect.forEach(batch, (member) => writeBatch(key, [member]), { concurrency: "unbounded", discard: true })
          : deliver(batch, exit)
    )

  /** One of the key's running writes: `first`, then each batch that gathered meanwhile, until none did. */
  const run = (key: K, state: KeyState<In, Out, E, S>, first: ReadonlyArray<Member<In, Out, E>>) => {
    const loop = (batch: ReadonlyArray<Member<In, Out, E>>): Effect.Effect<void, never, R> =>
      Effect.flatMap(writeBatch(key, batch), () =>
        Effect.suspend(() => {
          if (state.queue.length === 0) {
            state.inFlight -= 1
            if (state.inFlight === 0) states.delete(key)
            return Effect.void
          }
          const next = state.queue
          state.queue = []
          state.size = undefined
          return loop(next)
        })
      )
    return loop(first)
  }

  const submit = (key: K, input: In): Effect.Effect<Out, E, R> =>
    Effect.flatMap(Deferred.make<Out, E>(), (done) =>
      Effect.suspend(() => {
        inputs += 1
        const member: Member<In, Out, E> = { input, done }
        let state = states.get(key)
        if (state === undefined) {
          state = { inFlight: 0, queue: [], size: undefined }
          states.set(key, state)
        }
        if (state.inFlight < options.maxInFlight) {
          state.inFlight += 1
          return Effect.zipRight(Effect.forkDaemon(run(key, state, [member])), Deferred.await(done))
        }
        const size = state.size === undefined ? options.sizeOf(input) : options.joins(state.size, input)
        // Not joining: written alone at once, by a fiber of its own like every other write.
        if (size === undefined)
          return Effect.zipRight(Effect.forkDaemon(writeBatch(key, [member])), Deferred.await(done))
        state.queue.push(member)
        state.size = size
        return Deferred.await(done)
      })
    )

  return { submit, stats: () => ({ batches, inputs }) }
}
