/**
 * Group commit: writes of one key that arrive while a write of that key is
 * under way are gathered and written together, in one statement, when it
 * ends; a write that arrives with nothing under way goes at once, alone. So
 * an idle gateway adds no wait, and a busy one turns N statements (and N
 * commits) into about one per statement's time, each as large as `joins`
 * lets it grow. A write that cannot join the gathering batch (it would make
 * it too large, or it conflicts with a write in it) is written alone, at
 * once, as it was before batching: batching never holds a write back.
 *
 * Each batch is written by a fiber of its own, not by one of the writers,
 * so a writer that is interrupted (its client went away) neither stops the
 * batch nor leaves the others waiting; its write is made all the same, as an
 * unbatched write already begun would be. Every writer of a batch gets the
 * batch's outcome: its own share of a success, or the failure.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"

interface Member<In, Out, E> {
  readonly input: In
  readonly done: Deferred.Deferred<Out, E>
}

interface Gathering<In, Out, E, S> {
  queue: Array<Member<In, Out, E>>
  /** What the queue's inputs come to, for `joins` (none while it is empty). */
  size: S | undefined
}

export interface GroupCommitOptions<K, In, Out, E, R, S> {
  /** The size of a batch of one input. */
  readonly sizeOf: (input: In) => S
  /** The size of a batch with `input` added, or none when it may not join (too large, or in conflict). */
  readonly joins: (size: S, input: In) => S | undefined
  /** Writes a batch (in arrival order) and answers each input's share, in the same order. */
  readonly write: (key: K, inputs: ReadonlyArray<In>) => Effect.Effect<ReadonlyArray<Out>, E, R>
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
  /** Keys with a batch being written; each holds the batch gathering behind it. */
  const busy = new Map<K, Gathering<In, Out, E, S>>()
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

  /**
   * Writes a batch. A batch of several that fails is written again one input
   * at a time (at once, side by side), so that one input's fault (a value the
   * store refuses) fails only its own write, as it did before batching.
   */
  const writeBatch = (key: K, batch: ReadonlyArray<Member<In, Out, E>>): Effect.Effect<void, never, R> =>
    Effect.flatMap(
      Effect.exit(
        write(
          key,
          batch.map((member) => member.input)
        )
      ),
      (exit) =>
        Exit.isFailure(exit) && batch.length > 1 && !Exit.isInterrupted(exit)
          ? Effect.forEach(batch, (member) => writeBatch(key, [member]), { concurrency: "unbounded", discard: true })
          : deliver(batch, exit)
    )

  /** Writes `first`'s batch, then each batch that gathered meanwhile, until none did. */
  const drain = (key: K, first: ReadonlyArray<Member<In, Out, E>>): Effect.Effect<void, never, R> =>
    Effect.flatMap(writeBatch(key, first), () =>
      Effect.suspend(() => {
        const gathering = busy.get(key)
        if (gathering === undefined || gathering.queue.length === 0) {
          busy.delete(key)
          return Effect.void
        }
        const next = gathering.queue
        gathering.queue = []
        gathering.size = undefined
        return drain(key, next)
      })
    )

  const submit = (key: K, input: In): Effect.Effect<Out, E, R> =>
    Effect.flatMap(Deferred.make<Out, E>(), (done) =>
      Effect.suspend(() => {
        const member: Member<In, Out, E> = { input, done }
        const gathering = busy.get(key)
        if (gathering === undefined) {
          busy.set(key, { queue: [], size: undefined })
          inputs += 1
          return Effect.zipRight(Effect.forkDaemon(drain(key, [member])), Deferred.await(done))
        }
        const size = gathering.size === undefined ? options.sizeOf(input) : options.joins(gathering.size, input)
        inputs += 1
        if (size === undefined) {
          return Effect.flatMap(write(key, [input]), (outs) => {
            const out = outs[0]
            return out === undefined ? Effect.die(new Error("a write answered no share")) : Effect.succeed(out)
          })
        }
        gathering.queue.push(member)
        gathering.size = size
        return Deferred.await(done)
      })
    )

  return { submit, stats: () => ({ batches, inputs }) }
}
