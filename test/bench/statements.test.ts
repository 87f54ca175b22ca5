/**
 * The node:http + pg baseline of `npm run bench` runs the statements
 * bench/lib/statements.ts captures from the repositories. These tests keep
 * that capture honest, so a repository change it cannot follow fails here
 * rather than in (or silently past) the benchmark:
 *
 * - every statement is captured with each parameter traced to an argument
 *   of the repository method or to a constant, and every argument is read;
 * - the capture is the same over PostgreSQL (with TEST_DATABASE_URL) as on the
 *   embedded store (both compile with @effect/sql-pg's compiler);
 * - the gateway's use cases, given the bench's own requests, run exactly the
 *   statements ROUTES lists for that request, in that order (the baseline
 *   binds its statements through ROUTES).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Captured, ROUTES, type RouteName, STATEMENT_NAMES } from "../../bench/lib/captured.js"
import { appendBody, createThreadBody, runReportBody } from "../../bench/lib/payload.js"
import { captureStatements, declaredArgs } from "../../bench/lib/statements.js"
import type { CallerShape } from "../../schema/Api/Security.js"
import { CreateMessage, MessageListQuery } from "../../schema/Message.js"
import { RunListQuery, RunReport } from "../../schema/Run.js"
import { CreateThread } from "../../schema/Thread.js"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import * as Database from "../../src/platform/db/Database.js"
import { Runs } from "../../src/runs/Runs.js"
import { Messages } from "../../src/threads/Messages.js"
import { Threads } from "../../src/threads/Threads.js"
import { freshPostgresDatabase } from "../support/layers.js"

const SUBSCRIPTIONS_READ = "SELECT DISTINCT unnest(events) AS event FROM webhooks WHERE project_id = $1"

const embedded = () => Database.layerFor({ kind: "embedded", dataDir: undefined }, 1)

describe("bench: node:http + pg runs the repositories' own statements", () => {
  let captured: Captured

  beforeAll(async () => {
    captured = await captureStatements(embedded())
  })

  it("captures every statement, each parameter traced to an argument or a constant, every argument read", () => {
    for (const name of STATEMENT_NAMES) {
      const statement = captured[name]
      expect(statement.text, name).not.toContain("\u0001")
      expect(statement.params.length, name).toBe(new Set(statement.text.match(/\$\d+/g)).size)
      const read = new Set(statement.params.flatMap((p) => ("arg" in p ? [p.arg] : [])))
      expect([...read].sort(), `${name} reads every argument it is given`).toEqual([...declaredArgs(name)].sort())
    }
  })

  it("captures the append's second statement (the id made under the thread's lock), not the first again", () => {
    expect(captured["MessagesRepo.appendIdUnderLock"].text).not.toBe(captured["MessagesRepo.append"].text)
    expect(captured["MessagesRepo.appendIdUnderLock"].text).toContain("next AS (")
  })

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    "captures the same statements over PostgreSQL (skipped: TEST_DATABASE_URL is not set)",
    async () => {
      const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
      try {
        const overPostgres = await captureStatements(
          Database.layerFor({ kind: "postgres", url: Redacted.make(db.url) }, 1)
        )
        expect(overPostgres).toEqual(captured)
      } finally {
        await db.drop()
      }
    }
  )

  describe("the gateway's use cases run exactly ROUTES' statements for the bench's requests", () => {
    const runtime = ManagedRuntime.make(
      Layer.mergeAll(Threads.Default, Messages.Default, Runs.Default, ApiKeys.Default).pipe(
        Layer.provideMerge(embedded()),
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map()))),
        Layer.provide(Logger.minimumLogLevel(LogLevel.None))
      )
    )
    afterAll(() => runtime.dispose())

    /** The texts of the statements `effect` runs, in order (they do run). */
    const statementsOf = async <A>(effect: Effect.Effect<A, unknown, Threads | Messages | Runs | ApiKeys>) => {
      const texts: Array<string> = []
      const value = await runtime.runPromise(
        Statement.withTransformer(effect, (statement) => {
          texts.push(statement.compile()[0])
          return Effect.succeed(statement)
        })
      )
      return { value, texts }
    }
    /**
     * The webhook subscriptions of a project (which events to write
     * deliveries for) are read before a write that may raise one, and kept
     * SUBSCRIPTIONS_CACHE_MS (1 s): the bench's requests find them cached but
     * for one a second per project, so the baseline does not run the read.
     * Here it may come first (a miss), never later.
     */
    const expectRoute = (route: RouteName, texts: ReadonlyArray<string>) => {
      const rest = texts[0] === SUBSCRIPTIONS_READ ? texts.slice(1) : texts
      expect(rest, route).toEqual(ROUTES[route].map((name) => captured[name].text))
    }

    const caller: CallerShape = {
      projectId: "proj_bench_statements",
      userId: "user_bench",
      workspaceId: "ws_bench",
      mode: "api_key"
    }
    let threadId = ""

    beforeAll(async () => {
      await runtime.runPromise(
        Effect.flatMap(
          SqlClient.SqlClient,
          (sql) => sql`INSERT INTO projects (id, name) VALUES (${caller.projectId}, 'bench')`
        )
      )
    })

    it("API key (a cache miss), create thread, get thread", async () => {
      const key = await runtime.runPromise(Effect.flatMap(ApiKeys, (keys) => keys.create(caller.projectId, {})))
      const verified = await statementsOf(Effect.flatMap(ApiKeys, (keys) => keys.verify(key.apiKey)))
      expect(verified.value?.projectId).toBe(caller.projectId)
      expectRoute("api_key", verified.texts)

      const input = Schema.decodeUnknownSync(CreateThread)(JSON.parse(createThreadBody))
      const created = await statementsOf(Effect.flatMap(Threads, (threads) => threads.create(caller, input)))
      expectRoute("create_thread", created.texts)
      threadId = created.value.id

      const got = await statementsOf(Effect.flatMap(Threads, (threads) => threads.getJson(caller, threadId)))
      expect(JSON.parse(got.value).id).toBe(threadId)
      expectRoute("get_thread", got.texts)
    })

    it("append message, list messages", async () => {
      const input = Schema.decodeUnknownSync(CreateMessage)(JSON.parse(appendBody(null)))
      const appended = await statementsOf(
        Effect.flatMap(Messages, (messages) => messages.create(caller, threadId, input))
      )
      expectRoute("append_message", appended.texts)

      const query = Schema.decodeUnknownSync(MessageListQuery)({ limit: "200" })
      const listed = await statementsOf(Effect.flatMap(Messages, (messages) => messages.list(caller, threadId, query)))
      expect(listed.value.length).toBe(1)
      expectRoute("list_messages", listed.texts)
    })

    it("report a run, list the project's runs", async () => {
      const report = Schema.decodeUnknownSync(RunReport)(JSON.parse(runReportBody(threadId)))
      const reported = await statementsOf(Effect.flatMap(Runs, (runs) => runs.report(caller, report, undefined)))
      expectRoute("run_report", reported.texts)

      const query = Schema.decodeUnknownSync(RunListQuery)({ limit: "50" })
      const listed = await statementsOf(Effect.flatMap(Runs, (runs) => runs.listJson(caller.projectId, query)))
      expect(listed.value.length).toBe(1)
      expectRoute("list_runs", listed.texts)
    })
  })
})
