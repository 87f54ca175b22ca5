/**
 * The statements the node:http + pg baseline runs, as bench/lib/statements.ts
 * captured them from the gateway's repositories: the SQL text exactly as
 * @effect/sql-pg hands it to `pg`, and for every positional parameter where
 * its value comes from (an argument of the repository method, possibly
 * JSON-serialized or turned into an ISO string by the repository, or a
 * constant the repository always sends).
 *
 * This module has no Effect import: the baseline server loads it to bind
 * request values to the captured parameters.
 */
import { readFileSync } from "node:fs"

/** The repository methods whose statements a baseline runs. */
export const STATEMENT_NAMES = [
  "ApiKeysRepo.findActiveByHash",
  "ThreadsRepo.insert",
  "ThreadsRepo.getJson",
  "ThreadsRepo.exists",
  "MessagesRepo.append",
  /** MessagesRepo.append's second statement: the id made under the thread's lock (the first one's was stale). */
  "MessagesRepo.appendIdUnderLock",
  "MessagesRepo.list",
  "RunsRepo.insert",
  "RunsRepo.listJson"
] as const
export type StatementName = (typeof STATEMENT_NAMES)[number]

/**
 * The statements the gateway runs for each request a workload sends, in
 * order (test/bench/statements.test.ts runs the gateway's use cases with the
 * workloads' requests and checks that they run exactly these), and so the
 * ones the baseline runs (it binds them through `bindRoute`).
 * `api_key`: once per key per API_KEY_CACHE_MS, before any of the others.
 */
export const ROUTES = {
  api_key: ["ApiKeysRepo.findActiveByHash"],
  create_thread: ["ThreadsRepo.insert"],
  get_thread: ["ThreadsRepo.getJson"],
  append_message: ["MessagesRepo.append"],
  /**
   * When the append's row says its id was stale (another append to the thread
   * committed a larger one first: appends racing on one thread), the gateway
   * runs the second statement, which makes the id above the largest under the lock.
   */
  append_message_stale: ["MessagesRepo.appendIdUnderLock"],
  list_messages: ["ThreadsRepo.exists", "MessagesRepo.list"],
  run_report: ["RunsRepo.insert"],
  list_runs: ["RunsRepo.listJson"]
} as const satisfies Record<string, ReadonlyArray<StatementName>>
export type RouteName = keyof typeof ROUTES

/**
 * Where one parameter's value comes from: an argument of the repository
 * method (its path, such as `scope.projectId` or `run.tags`) passed as is,
 * as `JSON.stringify(value)` or as `value.toISOString()`; or a constant.
 */
export type ParamSource =
  | { readonly arg: string; readonly as: "value" | "json" | "iso" }
  | { readonly constant: string | number | boolean | null }

export interface CapturedStatement {
  readonly name: StatementName
  /** The SQL text as handed to `pg`. */
  readonly text: string
  /** `$1`, `$2`, ... in order. */
  readonly params: ReadonlyArray<ParamSource>
}

export type Captured = Readonly<Record<StatementName, CapturedStatement>>

/** The file bench/run.ts writes (BENCH_STATEMENTS), checked for every statement. */
export const readCaptured = (file: string | undefined): Captured => {
  if (file === undefined || file === "") throw new Error("BENCH_STATEMENTS: no file of captured statements")
  const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<Captured>
  for (const name of STATEMENT_NAMES) {
    const statement = parsed[name]
    if (statement === undefined || typeof statement.text !== "string" || !Array.isArray(statement.params)) {
      throw new Error(`${file}: no captured statement ${name}`)
    }
  }
  return parsed as Captured
}

/** The arguments a statement's parameters come from. */
export const argsOf = (statement: CapturedStatement): ReadonlySet<string> =>
  new Set(statement.params.flatMap((p) => ("arg" in p ? [p.arg] : [])))

/** The parameter values of one execution, from the request's values by argument path. */
export type Binder = (values: Readonly<Record<string, unknown>>) => Array<unknown>

const encode = (statement: CapturedStatement, source: { arg: string; as: "value" | "json" | "iso" }) => {
  const { arg, as } = source
  switch (as) {
    case "value":
      return (values: Readonly<Record<string, unknown>>) => values[arg]
    case "json":
      return (values: Readonly<Record<string, unknown>>) => JSON.stringify(values[arg])
    case "iso":
      return (values: Readonly<Record<string, unknown>>) => {
        const value = values[arg]
        if (!(value instanceof Date)) throw new Error(`${statement.name}: ${arg} must be a Date`)
        return value.toISOString()
      }
  }
}

/**
 * A binder for `statement` given the argument paths the caller supplies. It
 * throws at once unless those are exactly the arguments the statement reads,
 * so a repository change shows up when the baseline starts, not as a wrong
 * figure.
 */
export const bind = (statement: CapturedStatement, supplied: ReadonlyArray<string>): Binder => {
  const needed = argsOf(statement)
  const missing = [...needed].filter((arg) => !supplied.includes(arg))
  const unused = supplied.filter((arg) => !needed.has(arg))
  if (missing.length > 0 || unused.length > 0) {
    throw new Error(
      `${statement.name} now reads ${[...needed].join(", ")}` +
        (missing.length > 0 ? `; the baseline does not supply ${missing.join(", ")}` : "") +
        (unused.length > 0 ? `; it no longer reads ${unused.join(", ")}` : "")
    )
  }
  const getters = statement.params.map((source) => {
    if ("arg" in source) return encode(statement, source)
    const value = source.constant
    return () => value
  })
  return (values) => {
    const params = new Array<unknown>(getters.length)
    for (let i = 0; i < getters.length; i++) params[i] = (getters[i] as (v: typeof values) => unknown)(values)
    return params
  }
}

/**
 * The binders of one route's statements, by name: `supplied` must name
 * exactly the statements of ROUTES[route], each with the argument paths the
 * baseline supplies for it.
 */
export const bindRoute = <R extends RouteName>(
  captured: Captured,
  route: R,
  supplied: { readonly [K in (typeof ROUTES)[R][number]]: ReadonlyArray<string> }
): { readonly [K in (typeof ROUTES)[R][number]]: Binder } => {
  const expected: ReadonlyArray<StatementName> = ROUTES[route]
  const given = Object.keys(supplied)
  if (given.length !== expected.length || !expected.every((name) => given.includes(name))) {
    throw new Error(`route ${route} runs ${expected.join(", ")}; the baseline binds ${given.join(", ")}`)
  }
  const binders: Partial<Record<StatementName, Binder>> = {}
  for (const name of expected) {
    binders[name] = bind(captured[name], (supplied as Record<string, ReadonlyArray<string>>)[name] ?? [])
  }
  return binders as { readonly [K in (typeof ROUTES)[R][number]]: Binder }
}
