import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Redacted from "effect/Redacted"
import { describe, expect, it } from "vitest"
import { isStoreUnavailable, isUnstorableValue } from "../../../src/platform/Defects.js"
import { DataDirLocked } from "../../../src/platform/db/DataDirLock.js"

/** The error a PostgreSQL client really fails with on `url`. */
const connectFailure = async (url: string) => {
  const exit = await Effect.runPromiseExit(
    Effect.scoped(Layer.build(PgClient.layer({ url: Redacted.make(url), connectTimeout: Duration.seconds(5) })))
  )
  if (Exit.isSuccess(exit)) throw new Error(`connected to ${url}`)
  return Cause.squash(exit.cause)
}

const sqlError = (cause: unknown) => new SqlError({ cause, message: "Failed to execute statement" })

describe("isStoreUnavailable", () => {
  it("recognizes a refused connection and an unknown host, as the client reports them", async () => {
    const refused = await connectFailure("postgres://postgres@127.0.0.1:1/none")
    expect(refused).toBeInstanceOf(SqlError)
    expect(isStoreUnavailable(refused)).toBe(true)
    const unknownHost = await connectFailure("postgres://postgres@no-such-host.invalid/none")
    expect(isStoreUnavailable(unknownHost)).toBe(true)
  }, 30_000)

  it("recognizes connection SQLSTATEs, shutdowns, timeouts and cut connections", () => {
    for (const code of ["08006", "08001", "08P01", "57P01", "57P02", "57P03", "53300"]) {
      expect(isStoreUnavailable(sqlError({ code, message: "server says no" })), code).toBe(true)
    }
    expect(isStoreUnavailable(sqlError(new Error("Connection terminated unexpectedly")))).toBe(true)
    expect(
      isStoreUnavailable(
        sqlError(new Error("Connection terminated due to connection timeout", { cause: new Error("timeout expired") }))
      )
    ).toBe(true)
    expect(isStoreUnavailable(sqlError(new Error("timeout exceeded when trying to connect")))).toBe(true)
    expect(
      isStoreUnavailable(
        new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" })
      )
    ).toBe(true)
    const reset = Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })
    expect(isStoreUnavailable(sqlError(reset))).toBe(true)
    expect(isStoreUnavailable(new DataDirLocked({ dataDir: "/data", pid: 42 }))).toBe(true)
  })

  it("leaves out the request's faults, other database errors and the same codes outside the store", () => {
    expect(isStoreUnavailable(sqlError({ code: "23505", message: "duplicate key" }))).toBe(false)
    const unstorable = sqlError({ code: "22P05", message: "unsupported Unicode escape sequence" })
    expect(isUnstorableValue(unstorable)).toBe(true)
    expect(isStoreUnavailable(unstorable)).toBe(false)
    expect(isStoreUnavailable(sqlError(new Error("syntax error at or near")))).toBe(false)
    expect(isStoreUnavailable(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }))).toBe(false)
    expect(isStoreUnavailable(new Error("Connection terminated unexpectedly"))).toBe(false)
    expect(isStoreUnavailable(undefined)).toBe(false)
    // A server error of another SQLSTATE whose message quotes the client's text is not unreachability.
    const quoted = sqlError({ code: "22023", message: 'invalid value "connection timed out"' })
    expect(isStoreUnavailable(quoted)).toBe(false)
    // node-postgres's query_timeout (a database gone silent) is.
    expect(isStoreUnavailable(sqlError(new Error("Query read timeout")))).toBe(true)
  })

  it.runIf(process.env.TEST_DATABASE_URL)("recognizes a backend the server terminated (57P01)", async () => {
    const url = process.env.TEST_DATABASE_URL ?? ""
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        const sql = yield* SqlClient.SqlClient
        yield* sql`SELECT pg_terminate_backend(pg_backend_pid())`
      }).pipe(Effect.scoped, Effect.provide(PgClient.layer({ url: Redacted.make(url), maxConnections: 1 })))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) expect(isStoreUnavailable(Cause.squash(exit.cause))).toBe(true)
  })
})
