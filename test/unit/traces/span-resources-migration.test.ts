/**
 * Migration 0025 moves the resource and scope copied into every span row
 * before it into `span_resources`: one row per project and distinct
 * (resource, scope), each span naming its row, the row as recent as its
 * newest span (so retention keeps it while any of them stays).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as Database from "../../../src/platform/db/Database.js"
import spanResources from "../../../src/platform/db/migrations/0025_span_resources.js"
import { stores } from "../../support/layers.js"

describe.each(stores)("span resources migration ($name)", (storeUnderTest) => {
  it("moves each project's distinct resources and scopes out of the span rows", async () => {
    const { store, drop } = await storeUnderTest.make()
    try {
      const result = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(Database.layerFor(store, 2))
            const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
            // Back to the schema before 0025, with spans that carry their resource and scope.
            yield* sql`DROP TABLE span_resources`
            yield* sql`ALTER TABLE spans DROP COLUMN resource_id`
            yield* sql`ALTER TABLE spans ADD COLUMN resource jsonb NOT NULL DEFAULT '{}'`
            yield* sql`ALTER TABLE spans ADD COLUMN scope jsonb NOT NULL DEFAULT '{}'`
            yield* sql`ALTER TABLE spans ALTER COLUMN resource DROP DEFAULT`
            yield* sql`ALTER TABLE spans ALTER COLUMN scope DROP DEFAULT`
            yield* sql`INSERT INTO projects (id, name) VALUES ('proj_a', 'a'), ('proj_b', 'b')`
            const span = (project: string, trace: string, span: string, service: string, scope: string, days: number) =>
              sql`INSERT INTO spans (project_id, trace_id, span_id, trace_state, name, kind, start_ns, end_ns,
                  status_code, status_message, service_name, attributes, events, links, resource, scope, stored_at)
                VALUES (${project}, ${trace}, ${span}, '', 'n', 1, 0, 0, 0, '', ${service}, '{}', '[]', '[]',
                  ${JSON.stringify({ "service.name": service })}::jsonb,
                  ${JSON.stringify({ name: scope, version: "1", attributes: {} })}::jsonb,
                  now() - make_interval(days => ${days}))`
            yield* span("proj_a", "t1", "s1", "api", "http", 10)
            yield* span("proj_a", "t1", "s2", "api", "http", 2)
            yield* span("proj_a", "t2", "s1", "api", "db", 5)
            yield* span("proj_a", "t3", "s1", "worker", "http", 1)
            yield* span("proj_b", "t1", "s1", "api", "http", 3)
            yield* spanResources.pipe(Effect.provideService(SqlClient.SqlClient, sql))
            const spans = yield* sql<{ project_id: string; trace_id: string; span_id: string; row: string }>`
              SELECT s.project_id, s.trace_id, s.span_id,
                r.resource ->> 'service.name' || '/' || (r.scope ->> 'name') || '/' ||
                  extract(day FROM now() - r.stored_at)::int AS row
              FROM spans s JOIN span_resources r ON r.project_id = s.project_id AND r.id = s.resource_id
              ORDER BY 1, 2, 3`
            const [rows] = yield* sql<{ n: number }>`SELECT count(*)::int AS n FROM span_resources`
            const columns = yield* sql<{ column_name: string }>`
              SELECT column_name FROM information_schema.columns
              WHERE table_name = 'spans' AND column_name IN ('resource', 'scope', 'resource_id')`
            return { spans, rows: rows?.n, columns: columns.map((column) => column.column_name) }
          })
        )
      )
      expect(result.rows).toBe(4)
      expect(result.columns).toEqual(["resource_id"])
      // Each span reads its own resource and scope back; a shared row is as recent as its newest span.
      expect(result.spans.map((span) => `${span.project_id} ${span.trace_id} ${span.span_id} ${span.row}`)).toEqual([
        "proj_a t1 s1 api/http/2",
        "proj_a t1 s2 api/http/2",
        "proj_a t2 s1 api/db/5",
        "proj_a t3 s1 worker/http/1",
        "proj_b t1 s1 api/http/3"
      ])
    } finally {
      await drop()
    }
  })
})
