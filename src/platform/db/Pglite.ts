/**
 * An @effect/sql SqlClient over in-process PGlite (adapted from
 * shared/examples/PgliteSqlClient.ts). PGlite is one backend session: queries
 * are serialized by a semaphore and a transaction holds the session until it
 * ends. Statements go through the @effect/sql-pg compiler, so repository code
 * is identical on PGlite and PostgreSQL.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as SqlConnection from "@effect/sql/SqlConnection"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import { PGlite } from "@electric-sql/pglite"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import { unpackImage, usableImage } from "./PgliteImage.js"

type Row = Record<string, unknown>

export const make = (db: PGlite) =>
  Effect.gen(function* () {
    const session = yield* Effect.makeSemaphore(1)
    const attempt = <A>(f: () => Promise<A>) =>
      Effect.tryPromise({
        try: f,
        catch: (cause) => new SqlError({ cause, message: `PGlite: ${String(cause)}` })
      })
    const rows = (sql: string, params: ReadonlyArray<unknown>) =>
      attempt(() => db.query<Row>(sql, [...params])).pipe(Effect.map((r) => r.rows))
    const transform =
      (transformRows: ((rows: ReadonlyArray<Row>) => ReadonlyArray<Row>) | undefined) => (r: ReadonlyArray<Row>) =>
        transformRows ? transformRows(r) : r

    const connection = (
      hold: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    ): SqlConnection.Connection => ({
      execute: (sql, params, transformRows) => hold(rows(sql, params).pipe(Effect.map(transform(transformRows)))),
      executeRaw: (sql, params) => hold(attempt(() => db.query(sql, [...params]))),
      executeValues: (sql, params) =>
        hold(
          attempt(() => db.query<Array<unknown>>(sql, [...params], { rowMode: "array" })).pipe(
            Effect.map((r) => r.rows)
          )
        ),
      executeUnprepared: (sql, params, transformRows) =>
        hold(
          (params.length === 0
            ? attempt(() => db.exec(sql)).pipe(Effect.map((results): ReadonlyArray<Row> => results.at(-1)?.rows ?? []))
            : rows(sql, params)
          ).pipe(Effect.map(transform(transformRows)))
        ),
      executeStream: (sql, params, transformRows) =>
        Stream.fromIterableEffect(hold(rows(sql, params).pipe(Effect.map(transform(transformRows)))))
    })

    return yield* SqlClient.make({
      acquirer: Effect.succeed(connection(session.withPermits(1))),
      // Inside a transaction the fiber already holds the session.
      transactionAcquirer: Effect.as(
        Effect.acquireRelease(session.take(1), () => session.release(1)),
        connection((effect) => effect)
      ),
      compiler: PgClient.makeCompiler(),
      spanAttributes: [
        ["db.system", "postgresql"],
        ["db.name", "pglite"]
      ]
    })
  })

/**
 * What every instance is made with, the build's image too (app/pgdata-image.ts).
 * shared_buffers 32 MB instead of PostgreSQL's 128 MB: WebAssembly's memory
 * cannot be given back and Emscripten zeroes the whole buffer pool when it
 * maps it, so each MB of it is a MB resident from the start (128 MB: ~300 MB
 * for PGlite alone; 32 MB: ~180 MB). Pages past it are read from the data
 * directory, which the OS caches.
 */
export const createOptions = {
  // int8 as the string node-postgres would return: JSON cannot carry bigint.
  parsers: { 20: (v: string) => v },
  startParams: [...PGlite.defaultStartParams, "-c", "shared_buffers=32MB"]
} as const

/** Files `dataDir` holds now, so that what a failed image load wrote can be told apart and removed. */
const entries = (dataDir: string): ReadonlySet<string> => new Set(fs.readdirSync(dataDir))

/**
 * Opens the database in `dataDir`; an empty one starts from the build's image
 * (PgliteImage.ts) when there is one, else initdb makes it. A load that
 * fails is undone and initdb runs instead.
 */
const open = (dataDir: string | undefined, imagePath: string | undefined) =>
  Effect.gen(function* () {
    const create = () =>
      Effect.promise(() =>
        PGlite.create({
          ...(dataDir ? { dataDir } : {}),
          ...createOptions,
          startParams: [...createOptions.startParams]
        })
      )
    const image = dataDir === undefined ? undefined : usableImage(dataDir, imagePath)
    if (dataDir === undefined || image === undefined) return yield* create()
    const before = entries(dataDir)
    return yield* Effect.promise(() => unpackImage(image, dataDir)).pipe(
      Effect.zipRight(create()),
      Effect.catchAllDefect((defect) =>
        Effect.gen(function* () {
          yield* Effect.logWarning("storage: the prepared image did not load; making the database with initdb", defect)
          for (const entry of entries(dataDir)) {
            if (!before.has(entry)) fs.rmSync(path.join(dataDir, entry), { recursive: true, force: true })
          }
          return yield* create()
        })
      )
    )
  })

/** `dataDir` undefined keeps the database in memory (tests); `imagePath`: the build's image (PgliteImage.ts). */
export const layer = (dataDir: string | undefined, imagePath?: string): Layer.Layer<SqlClient.SqlClient> =>
  Layer.scopedContext(
    Effect.gen(function* () {
      const db = yield* Effect.acquireRelease(open(dataDir, imagePath), (db) => Effect.promise(() => db.close()))
      return Context.make(SqlClient.SqlClient, yield* make(db))
    })
  ).pipe(Layer.provide(Reactivity.layer))
