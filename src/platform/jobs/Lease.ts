import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/**
 * How long a claimed row (a job's run, an outbox item, a webhook delivery)
 * stays its holder's without a renewal: a gateway killed mid-work leaves it
 * to another gateway at most this long after its last renewal
 * (docs/decisions.md "Jobs and retention").
 */
export const LEASE_MS = 30_000

/** How often a holder renews its leases while it works: a third of the lease, so two renewals can be late or fail. */
export const HEARTBEAT_MS = LEASE_MS / 3

/** The holder's renewal found a row it claimed held by another: its lease ran out and another gateway claimed it. */
export class LeaseLost extends Data.TaggedError("LeaseLost")<{ readonly message: string }> {}

/**
 * Runs `work` under a lease: every HEARTBEAT_MS a heartbeat calls `renew`
 * with the new end of the lease (now + LEASE_MS), and stops when `work`
 * ends. `renew` extends what the holder still works on (its own claim,
 * `leased_by = holder`, whether or not the lease has run out meanwhile) and
 * answers false when another holder has it. Then `work` is interrupted and
 * this fails with LeaseLost: one holder works on a row at a time, give or
 * take a heartbeat (the writes that finish a row check `leased_by` too). A
 * renewal that fails (the store unreachable) is logged and tried again at
 * the next beat: the work itself will meet the same store.
 */
export const withLease =
  <R2>(what: string, renew: (until: Date) => Effect.Effect<boolean, never, R2>) =>
  <A, E, R>(work: Effect.Effect<A, E, R>): Effect.Effect<A, E | LeaseLost, R | R2> => {
    const beat = Effect.gen(function* () {
      yield* Effect.sleep(Duration.millis(HEARTBEAT_MS))
      const until = new Date((yield* Clock.currentTimeMillis) + LEASE_MS)
      const held = yield* renew(until).pipe(
        Effect.catchAllCause((cause) =>
          Effect.as(Effect.logWarning(`could not renew the lease of ${what}; trying again`, cause), true)
        )
      )
      if (!held) {
        return yield* Effect.fail(
          new LeaseLost({ message: `lost the lease of ${what}: another gateway took it, this one's renewals stalled` })
        )
      }
    })
    // The heartbeat never succeeds: the race ends with `work` (the heartbeat is stopped) or with LeaseLost.
    return Effect.raceFirst(work, Effect.forever(beat))
  }

/**
 * The rows of one claim (a batch), which the holder finishes one by one:
 * `renewal` renews those not finished yet. A row is let go (`done`) before
 * the statement that finishes it (which clears or deletes its lease), so a
 * renewal running at that moment does not count it as lost.
 */
export const heldRows = <K>(rows: ReadonlyArray<K>, keyOf: (row: K) => string) => {
  const held = new Map(rows.map((row) => [keyOf(row), row]))
  return {
    done: (row: K): void => {
      held.delete(keyOf(row))
    },
    /** A `renew` for withLease: `extend` moves the given rows' leases to `until` and answers the keys it moved. */
    renewal:
      <R>(extend: (rows: ReadonlyArray<K>, until: Date) => Effect.Effect<ReadonlyArray<string>, never, R>) =>
      (until: Date): Effect.Effect<boolean, never, R> => {
        const asked = [...held.values()]
        if (asked.length === 0) return Effect.succeed(true)
        return Effect.map(extend(asked, until), (extended) => {
          const moved = new Set(extended)
          return asked.every((row) => moved.has(keyOf(row)) || !held.has(keyOf(row)))
        })
      }
  }
}
