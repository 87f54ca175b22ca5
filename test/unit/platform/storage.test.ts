import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { describe, expect, it } from "vitest"
import { ServicesLive } from "../../../app/Services.js"
import { SigningKeys } from "../../../src/auth/SigningKeys.js"
import * as Database from "../../../src/platform/db/Database.js"
import { sqlState, whenReferenceGone } from "../../../src/platform/db/SqlErrors.js"
import { ProjectAdmin } from "../../../src/projects/ProjectAdmin.js"
import { freshPostgresDatabase, stores } from "../../support/layers.js"

const withStore = <A>(store: Database.StoreKind, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(Database.layerFor(store, 2))
        return yield* use(Effect.runSync(Effect.provide(SqlClient.SqlClient, context)))
      })
    )
  )

const MIGRATIONS = [
  "foundation",
  "signing_keys",
  "anonymous_sessions",
  "rate_limits",
  "allowed_origins",
  "external_issuers",
  "usage",
  "runs_scores_events",
  "title_quota",
  "blob_secret",
  "workspace_claims",
  "message_order",
  "traces",
  "search",
  "message_external_ids",
  "thread_external_ids",
  "run_costs",
  "jobs",
  "user_erasures",
  "webhooks",
  "evaluators",
  "alert_rules",
  "usage_scores",
  "erasure_by_object",
  "span_resources",
  "dashboard_sessions",
  "score_source",
  "topics",
  "refresh_token_key"
]

const migrationsApplied = (sql: SqlClient.SqlClient) =>
  sql<{ name: string }>`SELECT name FROM effect_sql_migrations ORDER BY migration_id`.pipe(
    Effect.map((rows) => rows.map((row) => row.name))
  )

describe("storage on the embedded store", () => {
  it("persists across restarts and applies each migration once", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-storage-"))
    try {
      const store = { kind: "embedded", dataDir } as const
      await withStore(store, (sql) => sql`INSERT INTO projects (id, name) VALUES ('proj_a', 'kept')`)
      const [names, rows] = await withStore(store, (sql) =>
        Effect.all([migrationsApplied(sql), sql<{ name: string }>`SELECT name FROM projects`])
      )
      expect(names).toEqual(MIGRATIONS)
      expect(rows).toEqual([{ name: "kept" }])
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })

  it("answers int8 as strings, as node-postgres does", async () => {
    const value = await withStore({ kind: "embedded", dataDir: undefined }, (sql) =>
      sql<{ n: unknown }>`SELECT 9007199254740993::int8 AS n`.pipe(Effect.map(([row]) => row?.n))
    )
    expect(value).toBe("9007199254740993")
  })

  it("rolls back a failed transaction", async () => {
    const count = await withStore({ kind: "embedded", dataDir: undefined }, (sql) =>
      sql
        .withTransaction(
          Effect.zipRight(sql`INSERT INTO projects (id, name) VALUES ('proj_r', 'gone')`, Effect.fail("boom"))
        )
        .pipe(
          Effect.ignore,
          Effect.zipRight(sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`),
          Effect.map(([row]) => row?.n)
        )
    )
    expect(count).toBe(0)
  })
})

describe.each(stores)("database errors ($name)", (storeUnderTest) => {
  it("a foreign key violation is told apart from other errors", async () => {
    const made = await storeUnderTest.make()
    try {
      const outcome = await withStore(made.store, (sql) =>
        sql`INSERT INTO message_feedback (project_id, id, thread_id, message_id, user_id, type)
          VALUES ('proj_none', 'fb_1', 'thread_none', 'msg_none', 'u', 'positive')`.pipe(
          Effect.as("inserted"),
          whenReferenceGone("reference gone")
        )
      )
      expect(outcome).toBe("reference gone")
      const other = await withStore(made.store, (sql) =>
        sql`SELECT 1 FROM no_such_table`.pipe(
          Effect.as("selected"),
          whenReferenceGone("reference gone"),
          Effect.catchAll((error) => Effect.succeed(`failed: ${sqlState(error)}`))
        )
      )
      expect(other).toBe("failed: 42P01")
    } finally {
      await made.drop()
    }
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)("storage on PostgreSQL", () => {
  it("an interrupted statement runs to its end: no pg_cancel_backend, which could hit another request's", async () => {
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    try {
      const store = { kind: "postgres", url: Redacted.make(db.url) } as const
      const rows = await withStore(store, (sql) =>
        Effect.gen(function* () {
          yield* sql`CREATE TABLE done (n int)`
          const slow = yield* Effect.fork(sql`INSERT INTO done SELECT 1 FROM pg_sleep(0.4)`)
          yield* Effect.sleep("100 millis")
          // The interruption returns at once; the statement is not cancelled.
          yield* Fiber.interrupt(slow).pipe(
            Effect.timeoutFail({ duration: "1 second", onTimeout: () => new Error("interrupt waited") })
          )
          yield* Effect.sleep("700 millis")
          return yield* sql<{ n: number }>`SELECT n FROM done`
        })
      )
      expect(rows).toEqual([{ n: 1 }])
    } finally {
      await db.drop()
    }
  })

  it("gateways starting together on one database sign with one key", async () => {
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    try {
      const store = { kind: "postgres", url: Redacted.make(db.url) } as const
      const kids = await Effect.runPromise(
        Effect.all(
          Array.from({ length: 3 }, () =>
            Effect.scoped(
              Effect.flatMap(
                Layer.build(SigningKeys.Default.pipe(Layer.provide(Database.layerFor(store, 2)))),
                (context) => Effect.map(Effect.provide(SigningKeys, context), (keys) => keys.currentKid)
              )
            )
          ),
          { concurrency: "unbounded" }
        )
      )
      expect(new Set(kids).size).toBe(1)
    } finally {
      await db.drop()
    }
  })

  it("two gateways bootstrapping one empty database make one default project", async () => {
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    try {
      const store = { kind: "postgres", url: Redacted.make(db.url) } as const
      // Three gateways' services, built first so that their bootstraps overlap.
      const results = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const gateways = yield* Effect.all(
              Array.from({ length: 3 }, () =>
                Layer.build(ServicesLive.pipe(Layer.provide(Database.layerFor(store, 2))))
              ),
              { concurrency: "unbounded" }
            )
            return yield* Effect.all(
              gateways.map((context) =>
                Effect.flatMap(ProjectAdmin, (projects) => projects.bootstrap()).pipe(Effect.provide(context))
              ),
              { concurrency: "unbounded" }
            )
          })
        )
      )
      expect(results.filter((created) => created !== undefined)).toHaveLength(1)
      const rows = await withStore(store, (sql) => sql<{ name: string }>`SELECT name FROM projects`)
      expect(rows).toEqual([{ name: "default" }])
    } finally {
      await db.drop()
    }
  })

  it("two gateways migrating one new database at once both start", async () => {
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    try {
      const store = { kind: "postgres", url: Redacted.make(db.url) } as const
      const results = await Promise.all([withStore(store, migrationsApplied), withStore(store, migrationsApplied)])
      expect(results).toEqual([MIGRATIONS, MIGRATIONS])
    } finally {
      await db.drop()
    }
  })
})
