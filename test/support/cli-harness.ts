/**
 * `svc` run in the test's own process: the same command line (app/cliServices.ts
 * wiring, protocols/cli/Cli.ts parsing, output and exit statuses) on the store of
 * a gateway the test runs, or of a store it opens once, with what the command
 * prints captured. A `svc` process cold-starts in 2 to 8 s on this machine (Node,
 * then PGlite), so the settings-plane suites run their commands here and keep a
 * few real processes each (test/support/process.ts `runCli`) for what only a process
 * shows; test/protocols/cli/cli.test.ts runs every command as a process.
 */
import * as path from "node:path"
import { format } from "node:util"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll } from "vitest"
import { cliServices } from "../../app/cliServices.js"
import { runCli } from "../../protocols/cli/Cli.js"
import { ExitCode } from "../../protocols/cli/Failure.js"
import { environment } from "../../src/platform/Config.js"
import * as Database from "../../src/platform/db/Database.js"
import { TopicWorkerPath } from "../../src/topics/TopicCompute.js"
import { ADMIN_TOKEN, type StartedGateway, type StoreUnderTest } from "./layers.js"

export interface CliResult {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export interface InProcessCli {
  /** `svc ...args` with `env` over the target's configuration. */
  readonly run: (args: ReadonlyArray<string>, env?: Record<string, string>) => Promise<CliResult>
  /** `svc ...args --json`, which must exit 0 with nothing on stderr: its output, parsed. */
  readonly json: (args: ReadonlyArray<string>, env?: Record<string, string>) => Promise<any>
  /** Closes the store when the harness opened it (a gateway's store is the gateway's to close). */
  readonly close: () => Promise<void>
}

/** `effect` with what it writes to standard output and error through Console kept (util.format, one line per call). */
const capturing =
  (out: Array<string>, err: Array<string>) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const line =
      (into: Array<string>) =>
      (...args: ReadonlyArray<unknown>) =>
        Effect.sync(() => {
          into.push(`${format(...args)}\n`)
        })
    return Console.consoleWith((console) =>
      Effect.withConsole(effect, { ...console, log: line(out), info: line(out), error: line(err), warn: line(err) })
    )
  }

/** The exit status app/cli.ts's teardown gives an exit. */
const exitCode = (exit: Exit.Exit<number>) =>
  Exit.isSuccess(exit) ? exit.value : Cause.isInterruptedOnly(exit.cause) ? ExitCode.interrupted : ExitCode.failure

const harness = (
  sqlClient: SqlClient.SqlClient,
  settings: Readonly<Record<string, string>>,
  around: <A, E>(effect: Effect.Effect<A, E>) => Effect.Effect<A, E>,
  close: () => Promise<void>
): InProcessCli => {
  const cli = runCli(cliServices(Layer.succeed(SqlClient.SqlClient, sqlClient)))
  const run = async (args: ReadonlyArray<string>, env: Record<string, string> = {}): Promise<CliResult> => {
    const out: Array<string> = []
    const err: Array<string> = []
    const config = environment({ ...settings, ...env })
    const exit = await Effect.runPromiseExit(
      cli(["node", "svc", ...args]).pipe(
        Effect.provide(NodeContext.layer),
        Effect.provideService(
          TopicWorkerPath,
          path.resolve(import.meta.dirname, "..", "..", "dist", "topics-worker.js")
        ),
        capturing(out, err),
        Effect.withConfigProvider(config),
        Logger.withMinimumLogLevel(LogLevel.None),
        around
      )
    )
    return { code: exitCode(exit), stdout: out.join(""), stderr: err.join("") }
  }
  const json = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
    const result = await run([...args, "--json"], env)
    if (result.code !== 0 || result.stderr !== "") {
      throw new Error(`svc ${args.join(" ")} --json: exit ${result.code}\n${result.stderr}`)
    }
    return JSON.parse(result.stdout)
  }
  return { run, json, close }
}

/**
 * `svc` on `target`: a running gateway (its store, its configuration and its
 * clock, so that the CLI and the gateway see the same data on the embedded
 * store too), or a store opened here until `close`.
 */
export const cliFor = async (
  target: StartedGateway | Database.StoreKind,
  env: Record<string, string> = {}
): Promise<InProcessCli> => {
  if ("sqlClient" in target) {
    return harness(
      target.sqlClient,
      { ...target.env, ...env },
      (effect) => Effect.withClock(effect, target.clock),
      async () => {}
    )
  }
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(Database.layerFor(target, 2), scope))
  return harness(
    Effect.runSync(Effect.provide(SqlClient.SqlClient, context)),
    { ADMIN_TOKEN, ...env },
    (effect) => effect,
    () => Effect.runPromise(Scope.close(scope, Exit.void))
  )
}

const notStarted = () => Promise.reject(new Error("the suite's store is not open yet"))

/**
 * `svc` on a fresh store of `storeUnderTest` for a suite: opened before its
 * tests, closed (and dropped) after them. Read `.current` inside tests.
 */
export const useCli = (storeUnderTest: StoreUnderTest) => {
  const handle: { current: InProcessCli } = { current: { run: notStarted, json: notStarted, close: async () => {} } }
  let drop = async () => {}
  beforeAll(async () => {
    const made = await storeUnderTest.make()
    handle.current = await cliFor(made.store)
    drop = async () => {
      await handle.current.close()
      await made.drop()
    }
  })
  afterAll(() => drop())
  return handle
}
