/**
 * Captures the statements the gateway's repositories send, so that the
 * node:http + pg baseline runs them rather than a copy that can drift.
 *
 * Each repository method the baseline needs is called, through the real
 * repository layer over the given SqlClient, with sentinel arguments: a
 * distinct recognizable value per argument. A statement transformer
 * (`Statement.withTransformer`) records `statement.compile()`, which is
 * exactly the `[text, params]` @effect/sql-pg hands to `pg`, and then stops
 * the call with a defect, so nothing is executed. Each compiled parameter is
 * then traced back to the argument it came from: equal to the sentinel, to
 * its `JSON.stringify` or to its `toISOString()`. The capture runs twice with
 * different sentinels; a parameter equal in both runs that is no sentinel is
 * a constant of the repository (e.g. the id alphabet of MessagesRepo.append).
 * Anything else, a text that changes with the arguments, or a method that
 * runs no statement, throws: the capture can never drift silently.
 *
 * Only a method's first statement is captured (the transformer stops the
 * call there), but for MessagesRepo.appendIdUnderLock: there the first
 * statement is answered with a row saying its id was stale (another append
 * to the thread committed a larger one first, as when 32 connections append
 * to one thread), and the second statement, which makes the id under the
 * thread's lock, is captured. The baseline's requests reach no other second
 * statement (RunsRepo.insert looks an idempotency key up only when there is
 * one; the bench sends none).
 */

import type * as SqlClient from "@effect/sql/SqlClient"
import * as Statement from "@effect/sql/Statement"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { ApiKeysRepo } from "../../src/auth/ApiKeysRepo.js"
import { RunsRepo } from "../../src/runs/RunsRepo.js"
import { MessagesRepo } from "../../src/threads/MessagesRepo.js"
import { ThreadsRepo } from "../../src/threads/ThreadsRepo.js"
import {
  type Captured,
  type CapturedStatement,
  type ParamSource,
  STATEMENT_NAMES,
  type StatementName
} from "./captured.js"

// ---------------------------------------------------------------- argument shapes

type Kind = "text" | "int" | "date" | "json"
interface KindType {
  readonly text: string
  readonly int: number
  readonly date: Date
  /** A list of strings: the sentinel is one; recognized once the repository has JSON.stringify'd it. */
  readonly json: ReadonlyArray<string>
}
interface Arg<K extends Kind> {
  readonly _tag: "Arg"
  readonly kind: K
}
/** A value the capture passes as is: the baseline's requests always have it (it may shape the text). */
interface Fixed<T> {
  readonly _tag: "Fixed"
  readonly value: T
}
type Shape = Arg<Kind> | Fixed<unknown> | { readonly [key: string]: Shape }
type ValueOf<S> =
  S extends Arg<infer K> ? KindType[K] : S extends Fixed<infer T> ? T : { readonly [P in keyof S]: ValueOf<S[P]> }

const text: Arg<"text"> = { _tag: "Arg", kind: "text" }
const int: Arg<"int"> = { _tag: "Arg", kind: "int" }
const date: Arg<"date"> = { _tag: "Arg", kind: "date" }
const json: Arg<"json"> = { _tag: "Arg", kind: "json" }
const fixed = <T>(value: T): Fixed<T> => ({ _tag: "Fixed", value })

type Repos = ApiKeysRepo | ThreadsRepo | MessagesRepo | RunsRepo

/** A repository call and the shape of its arguments (the values' type is checked where it is written). */
interface Spec {
  readonly args: Shape
  readonly call: (values: never) => Effect.Effect<unknown, unknown, Repos>
  /** A SELECT whose row answers the method's first statement, so that its second one is captured. */
  readonly firstAnswer?: string
}
const spec = <S extends Shape>(
  args: S,
  call: (values: ValueOf<S>) => Effect.Effect<unknown, unknown, Repos>,
  firstAnswer?: string
): Spec => ({ args, call, ...(firstAnswer === undefined ? {} : { firstAnswer }) })

const scope = { projectId: text, workspaceId: text }

/** MessagesRepo.append's arguments as the baseline's appends have them. */
const appendArgs = {
  scope,
  message: {
    id: text,
    threadId: text,
    userId: text,
    parentId: text,
    // The baseline's appends name their parents by id and carry no external ids.
    parentExternalId: fixed(null),
    externalId: fixed(null),
    format: text,
    contentJson: text,
    searchText: text
  }
}

/** The first append statement's row when its id was not above the thread's last (MessagesRepo `AppendRow`). */
const STALE_APPEND_ROW =
  "SELECT true AS thread_found, NULL::text AS id, NULL::text AS existing_id, true AS stale, " +
  "true AS parent_found, NULL::text AS parent_external_id"

/**
 * The repository calls, with the argument shapes the baseline's requests
 * have. The argument paths (`scope.projectId`, `message.parentId`, ...) are
 * what the baseline binds its values to (bench/servers/node-pg.ts).
 */
const SPECS: { readonly [N in StatementName]: Spec } = {
  "ApiKeysRepo.findActiveByHash": spec({ keyHash: text }, (a) =>
    Effect.flatMap(ApiKeysRepo, (repo) => repo.findActiveByHash(a.keyHash))
  ),
  "ThreadsRepo.insert": spec(
    {
      scope,
      thread: { id: text, userId: text, lastMessageAt: date, title: text, metadata: json, externalId: text }
    },
    (a) => Effect.flatMap(ThreadsRepo, (repo) => repo.insert(a.scope, a.thread))
  ),
  "ThreadsRepo.getJson": spec({ scope, id: text }, (a) =>
    Effect.flatMap(ThreadsRepo, (repo) => repo.getJson(a.scope, a.id))
  ),
  "ThreadsRepo.exists": spec({ scope, id: text }, (a) =>
    Effect.flatMap(ThreadsRepo, (repo) => repo.exists(a.scope, a.id))
  ),
  "MessagesRepo.append": spec(appendArgs, (a) =>
    Effect.flatMap(MessagesRepo, (repo) => repo.append(a.scope, a.message))
  ),
  // The second statement of the same call, after the first answered that its id was stale.
  "MessagesRepo.appendIdUnderLock": spec(
    appendArgs,
    (a) => Effect.flatMap(MessagesRepo, (repo) => repo.append(a.scope, a.message)),
    STALE_APPEND_ROW
  ),
  // GET /v1/threads/{id}/messages?limit=N: no format, no cursor.
  "MessagesRepo.list": spec(
    { projectId: text, threadId: text, options: { limit: int, format: fixed(undefined), after: fixed(undefined) } },
    (a) => Effect.flatMap(MessagesRepo, (repo) => repo.list(a.projectId, a.threadId, a.options))
  ),
  // POST /v1/runs without an Idempotency-Key.
  "RunsRepo.insert": spec(
    {
      scope,
      run: {
        id: text,
        threadId: text,
        userId: text,
        messageId: text,
        // The baseline's reports carry none of what later 0.2 clients add.
        userMessageId: fixed(null),
        status: text,
        outcomeType: text,
        modelId: text,
        provider: text,
        providerType: text,
        inputTokens: int,
        outputTokens: int,
        reasoningTokens: int,
        cachedInputTokens: int,
        costUsd: fixed(null),
        durationMs: int,
        firstTokenMs: int,
        totalSteps: int,
        toolCallCount: int,
        error: text,
        errorCode: text,
        traceId: text,
        rootSpanId: fixed(null),
        tags: json,
        environment: text,
        release: text,
        detailJson: text,
        idempotencyKey: fixed(null),
        requestHash: fixed(null)
      }
    },
    (a) => Effect.flatMap(RunsRepo, (repo) => repo.insert(a.scope, a.run))
  ),
  // GET /v1/projects/runs?limit=N: no filters.
  "RunsRepo.listJson": spec(
    {
      projectId: text,
      filters: {
        limit: int,
        after: fixed(undefined),
        threadId: fixed(undefined),
        status: fixed(undefined),
        modelId: fixed(undefined),
        traceId: fixed(undefined),
        from: fixed(undefined),
        to: fixed(undefined)
      }
    },
    (a) => Effect.flatMap(RunsRepo, (repo) => repo.listJson(a.projectId, a.filters))
  )
}

// ---------------------------------------------------------------- sentinels

interface Sentinel {
  readonly path: string
  readonly value: string | number | Date | ReadonlyArray<string>
}

/** Distinct per argument and per round, and recognizable: text starts with \u0001, nobody's constant does. */
const sentinelFor = (kind: Kind, path: string, round: number, index: number): Sentinel["value"] => {
  switch (kind) {
    case "text":
      return `\u0001${round}:${path}`
    case "int":
      return 700_000_000 + round * 10_000 + index
    case "date":
      return new Date(Date.UTC(2001, 0, 1) + round * 86_400_000 + index * 1_000)
    case "json":
      return [`\u0001${round}:${path}`]
  }
}

/** The sentinel arguments of one round, and the list of sentinels by path. */
const instantiate = (shape: Shape, round: number): { value: unknown; sentinels: Array<Sentinel> } => {
  const sentinels: Array<Sentinel> = []
  const walk = (node: Shape, path: string): unknown => {
    if (node._tag === "Arg" && typeof node.kind === "string") {
      const value = sentinelFor(node.kind as Kind, path, round, sentinels.length)
      sentinels.push({ path, value })
      return value
    }
    if (node._tag === "Fixed" && "value" in node) return node.value
    return Object.fromEntries(
      Object.entries(node as { readonly [key: string]: Shape }).map(([key, child]) => [
        key,
        walk(child, path === "" ? key : `${path}.${key}`)
      ])
    )
  }
  return { value: walk(shape, ""), sentinels }
}

/** How a compiled parameter came from a sentinel, if it did. */
const matchSentinel = (param: unknown, sentinel: Sentinel): ParamSource | undefined => {
  const { path, value } = sentinel
  if (value instanceof Date) {
    if (param instanceof Date && param.getTime() === value.getTime()) return { arg: path, as: "value" }
    if (param === value.toISOString()) return { arg: path, as: "iso" }
    return undefined
  }
  if (typeof value === "object") return param === JSON.stringify(value) ? { arg: path, as: "json" } : undefined
  if (param === value) return { arg: path, as: "value" }
  if (typeof param === "string" && param === JSON.stringify(value)) return { arg: path, as: "json" }
  return undefined
}

const describe = (value: unknown): string =>
  value instanceof Date ? `Date(${value.toISOString()})` : (JSON.stringify(value) ?? String(value))

// ---------------------------------------------------------------- capture

/** The defect that stops a call once its statement is recorded (it may reach the exit wrapped, e.g. by Effect.fn). */
const STOP = { _tag: "bench/Stop" } as const

/**
 * Runs one repository call under a transformer that records its first
 * statement and stops it there; with `firstAnswer`, the first statement is
 * replaced by that SELECT (run, no side effect) and the second is recorded.
 */
const compileOne = (
  name: StatementName,
  runtime: ManagedRuntime.ManagedRuntime<Repos, unknown>,
  effect: Effect.Effect<unknown, unknown, Repos>,
  firstAnswer: string | undefined
): Promise<readonly [string, ReadonlyArray<unknown>]> => {
  const compiled: Array<readonly [string, ReadonlyArray<unknown>]> = []
  let answered = firstAnswer === undefined
  const transformer: Statement.Statement.Transformer = (statement, sql) => {
    if (!answered) {
      answered = true
      return Effect.succeed(sql.unsafe(firstAnswer ?? ""))
    }
    compiled.push(statement.compile())
    return Effect.die(STOP)
  }
  return runtime.runPromiseExit(Statement.withTransformer(effect, transformer)).then((exit) => {
    const first = compiled[0]
    if (first === undefined || compiled.length > 1 || Exit.isSuccess(exit)) {
      throw new Error(
        `${name}: expected one statement through @effect/sql, then the stop; got ${compiled.length} statement(s) and ` +
          (Exit.isFailure(exit) ? Cause.pretty(exit.cause) : "success")
      )
    }
    return first
  })
}

const captureOne = async (
  name: StatementName,
  runtime: ManagedRuntime.ManagedRuntime<Repos, unknown>
): Promise<CapturedStatement> => {
  const { args, call, firstAnswer } = SPECS[name]
  const rounds = await Promise.all(
    [1, 2].map(async (round) => {
      const { value, sentinels } = instantiate(args, round)
      const [sqlText, params] = await compileOne(name, runtime, call(value as never), firstAnswer)
      return { sqlText, params, sentinels }
    })
  )
  const [a, b] = rounds as [(typeof rounds)[0], (typeof rounds)[0]]
  if (a.sqlText !== b.sqlText) {
    throw new Error(`${name}: the statement text depends on the argument values; the capture cannot follow it`)
  }
  if (a.sqlText.includes("\u0001")) throw new Error(`${name}: an argument is folded into the statement text`)
  if (a.params.length !== b.params.length) throw new Error(`${name}: the parameter count depends on the arguments`)
  const params = a.params.map((param, i): ParamSource => {
    const other = b.params[i]
    const fromA = a.sentinels.flatMap((s) => matchSentinel(param, s) ?? [])
    const fromB = b.sentinels.flatMap((s) => matchSentinel(other, s) ?? [])
    const [source, ...more] = fromA
    if (source !== undefined) {
      const again = fromB[0]
      if (
        more.length > 0 ||
        fromB.length !== 1 ||
        again === undefined ||
        !("arg" in again) ||
        !("arg" in source) ||
        again.arg !== source.arg ||
        again.as !== source.as
      ) {
        throw new Error(`${name}: parameter $${i + 1} (${describe(param)}) cannot be attributed to one argument`)
      }
      return source
    }
    const constant =
      param === null || typeof param === "string" || typeof param === "number" || typeof param === "boolean"
        ? param
        : undefined
    if (fromB.length === 0 && constant !== undefined && Object.is(param, other) && !String(param).includes("\u0001")) {
      return { constant }
    }
    throw new Error(
      `${name}: parameter $${i + 1} cannot be attributed: ${describe(param)} / ${describe(other)} ` +
        "(neither an argument, its JSON or ISO string, nor a constant)"
    )
  })
  return { name, text: a.sqlText, params }
}

/** Every statement in STATEMENT_NAMES, compiled by the repositories over `sqlLayer` (nothing is executed). */
export const captureStatements = async (sqlLayer: Layer.Layer<SqlClient.SqlClient, unknown>): Promise<Captured> => {
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(ApiKeysRepo.Default, ThreadsRepo.Default, MessagesRepo.Default, RunsRepo.Default).pipe(
      Layer.provide(sqlLayer),
      Layer.provide(Logger.minimumLogLevel(LogLevel.Warning))
    )
  )
  try {
    const captured: Partial<Record<StatementName, CapturedStatement>> = {}
    for (const name of STATEMENT_NAMES) captured[name] = await captureOne(name, runtime)
    return captured as Captured
  } finally {
    await runtime.dispose()
  }
}

/** The argument paths each statement was captured with (the test checks every one is read). */
export const declaredArgs = (name: StatementName): ReadonlyArray<string> =>
  instantiate(SPECS[name].args, 1).sentinels.map((s) => s.path)
