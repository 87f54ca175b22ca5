/**
 * `svc` (docs/cli.md): every command on the embedded store, and on PostgreSQL
 * when TEST_DATABASE_URL is set, in this process; usage errors, an unusable
 * store and colour as a real process, output through pipes.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Cause from "effect/Cause"
import * as Redacted from "effect/Redacted"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { classify, ExitCode } from "../../../protocols/cli/Failure.js"
import { Forbidden } from "../../../schema/Errors.js"
import { cliFor } from "../../support/cli-harness.js"
import { freshPostgresDatabase } from "../../support/layers.js"
import { runCli } from "../../support/process.js"

const ESC = "\u001b["

type Result = Awaited<ReturnType<typeof runCli>>

/** What every run must be: no colour through a pipe, no stack trace, never an unprinted object. */
const checked = (result: Result): Result => {
  for (const stream of [result.stdout, result.stderr]) {
    expect(stream).not.toContain(ESC)
    expect(stream).not.toContain("[object Object]")
    expect(stream).not.toMatch(/\n\s+at /)
  }
  return result
}

const svc = async (args: ReadonlyArray<string>, env: Record<string, string>) => checked(await runCli(args, env))

/** A failed run: its exit status, nothing on stdout, and with `--json` one JSON object on stderr. */
const failure = (result: Result, exitCode: number) => {
  expect(result.code, result.stderr).toBe(exitCode)
  expect(result.stdout).toBe("")
  return result.stderr.trim()
}
const jsonFailure = (result: Result, exitCode: number) => {
  const stderr = failure(result, exitCode)
  expect(stderr.split("\n")).toHaveLength(1)
  return JSON.parse(stderr)
}

const embeddedDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-"))
afterAll(() => fs.rmSync(embeddedDir, { recursive: true, force: true }))

/**
 * How a store's suite runs `svc`: in this process (test/support/cli-harness.ts: the
 * same wiring, parsing, output and exit statuses). A `svc` process
 * cold-starts in 2 to 8 s here; what only a process shows (exit statuses,
 * standard output and error through pipes, colour) is tested as processes
 * in the suites below and in test/unit/platform/process.test.ts (project and key
 * commands on an embedded store the gateway then serves).
 */
type Runner = (args: ReadonlyArray<string>, env: Record<string, string>) => Promise<Result>

const stores: ReadonlyArray<{
  name: string
  open: () => Promise<{ env: Record<string, string>; run: Runner; drop: () => Promise<void> }>
}> = [
  {
    name: "embedded",
    open: async () => {
      const cli = await cliFor({ kind: "embedded", dataDir: embeddedDir })
      return { env: {}, run: cli.run, drop: cli.close }
    }
  },
  ...(process.env.TEST_DATABASE_URL
    ? [
        {
          name: "postgres",
          open: async () => {
            const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
            const cli = await cliFor({ kind: "postgres", url: Redacted.make(db.url) })
            return {
              env: {},
              run: cli.run,
              drop: async () => {
                await cli.close()
                await db.drop()
              }
            }
          }
        }
      ]
    : [])
]

describe.each(stores)("svc on the $name store", (store) => {
  let env: Record<string, string> = {}
  let run: Runner = runCli
  let drop = async () => {}
  beforeAll(async () => {
    ;({ env, run, drop } = await store.open())
  })
  afterAll(() => drop())
  // The suite's own svc, over its runner.
  const svc = async (args: ReadonlyArray<string>, env: Record<string, string>) => checked(await run(args, env))
  /** A successful `--json` run: exit 0, nothing on stderr, one JSON document on stdout. */
  const json = async (args: ReadonlyArray<string>, env: Record<string, string>) => {
    const result = await svc([...args, "--json"], env)
    expect(result.code, result.stderr).toBe(0)
    expect(result.stderr).toBe("")
    return JSON.parse(result.stdout)
  }

  it("every command takes --json, before or after its options, and prints one JSON document", async () => {
    const project = await json(["project", "create", "--name", "Scripted"], env)
    const id: string = project.project_id
    expect((await json(["--json", "project", "list"], env)).projects.map((p: { name: string }) => p.name)).toContain(
      "Scripted"
    )
    expect(await json(["project", "plan", "--project", id, "--plan", "pro"], env)).toMatchObject({ plan: "pro" })
    expect(await json(["project", "test-users", "--project", id], env)).toEqual({ prefixes: [] })
    expect(await json(["project", "test-users", "--project", id, "--prefix", "qa-"], env)).toEqual({
      prefixes: ["qa-"]
    })
    const key = await json(["key", "create", "--project", id, "--name", "ci"], env)
    expect((await json(["key", "list", "--project", id], env)).api_keys).toHaveLength(2)
    // Issue 10: `key revoke --json` was "Received unknown argument".
    expect(await json(["key", "revoke", "--json", "--project", id, "--key", key.key_id], env)).toEqual({
      key_id: key.key_id,
      revoked: true
    })
    expect(await json(["origins", "set", "--project", id, "--origin", "https://app.example"], env)).toEqual({
      origins: ["https://app.example"]
    })
    expect(await json(["origins", "list", "--project", id], env)).toEqual({ origins: ["https://app.example"] })
    const issuer = ["--issuer", "https://idp.example", "--jwks-url", "https://idp.example/jwks", "--audience", "app"]
    expect(await json(["issuer", "set", "--project", id, ...issuer], env)).toMatchObject({ audience: "app" })
    expect(await json(["issuer", "show", "--project", id], env)).toMatchObject({ issuer: "https://idp.example" })
    expect(await json(["issuer", "clear", "--project", id], env)).toEqual({ removed: true })
    expect(await json(["issuer", "show", "--project", id], env)).toBeNull()
    // Without --json the same commands print text.
    const text = await svc(["key", "list", "--project", id], env)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain("revoked")
  }, 240_000)

  it("a refused value is a usage error (2) with the admin API's issues; an unknown id is not found (3)", async () => {
    const id: string = (await json(["project", "create", "--name", "Errors"], env)).project_id
    const refused = jsonFailure(
      await svc(["origins", "set", "--project", id, "--origin", "a.example", "--json"], env),
      ExitCode.usage
    )
    expect(refused).toMatchObject({ error: "invalid_request", issues: [{ path: "origins.0" }] })
    expect(refused.message).toContain("--origin 'a.example': an origin is scheme://host")
    const refusedText = failure(await svc(["origins", "set", "--project", id, "--origin", "a.example"], env), 2)
    expect(refusedText).toMatch(/^svc: --origin 'a.example': an origin is scheme:\/\/host/)
    expect(
      jsonFailure(await svc(["key", "revoke", "--project", id, "--key", "key_nope", "--json"], env), ExitCode.notFound)
    ).toEqual({ error: "not_found", message: "API key not found" })
    expect(failure(await svc(["key", "list", "--project", "proj_nope"], env), ExitCode.notFound)).toBe(
      "svc: project not found"
    )
  }, 120_000)
})

describe("svc usage errors (exit 2)", () => {
  const env = { DATA_DIR: embeddedDir }

  it("name the argument or option and show the command's usage, as JSON or as text", async () => {
    const [missingJson, missingText, unknownArgument, unknownCommand, noCommand, badChoice] = await Promise.all([
      svc(["key", "revoke", "--json"], env),
      svc(["key", "list"], env),
      svc(["key", "revoke", "--project", "p", "--key", "k", "--frob"], env),
      svc(["key", "frob", "--json"], env),
      svc(["key"], env),
      svc(["project", "plan", "--project", "p", "--plan", "gold", "--json"], env)
    ])
    // Issue 10: a missing --project ended in "svc: [object Object]".
    expect(jsonFailure(missingJson, ExitCode.usage)).toEqual({
      error: "invalid_request",
      message: "Expected to find option: '--project'; Expected to find option: '--key'",
      usage: "svc key revoke --project text --key text"
    })
    expect(failure(missingText, ExitCode.usage).split("\n")).toEqual([
      "svc: Expected to find option: '--project'",
      "usage: svc key list --project text",
      "more: svc key list --help"
    ])
    expect(failure(unknownArgument, ExitCode.usage)).toMatch(
      /^svc: Received unknown argument: '--frob'\nusage: svc key revoke --project text --key text\n/
    )
    expect(jsonFailure(unknownCommand, ExitCode.usage)).toEqual({
      error: "invalid_request",
      message: "unknown command 'frob' for svc key",
      usage: "svc key <create|list|revoke> [options]"
    })
    expect(failure(noCommand, ExitCode.usage)).toMatch(/^svc: missing command: use one of create, list, revoke\n/)
    expect(jsonFailure(badChoice, ExitCode.usage)).toMatchObject({
      error: "invalid_request",
      message: "Expected one of the following cases: hobby, pro, startup, enterprise"
    })
  }, 60_000)

  it("help goes to standard output, exit 0, without colour through a pipe", async () => {
    const [root, command, withJson] = await Promise.all([
      svc(["--help"], env),
      svc(["key", "revoke", "--help"], env),
      svc(["key", "--help", "--json"], env)
    ])
    for (const help of [root, command, withJson]) {
      expect(help.code).toBe(0)
      expect(help.stderr).toBe("")
      expect(help.stdout).toContain("USAGE")
    }
    expect(root.stdout).toContain("Exit status: 0 done")
    expect(command.stdout).toContain("--project")
  }, 60_000)
})

describe("svc when the store cannot be used (exit 4)", () => {
  it("reports an unreachable PostgreSQL", async () => {
    const result = await svc(["project", "list", "--json"], { DATABASE_URL: "postgres://postgres@127.0.0.1:1/none" })
    const body = jsonFailure(result, ExitCode.storeUnavailable)
    expect(body.error).toBe("store_unavailable")
    expect(body.message).toContain("ECONNREFUSED")
  }, 60_000)

  it("reports an embedded store another process holds", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-locked-"))
    try {
      fs.writeFileSync(path.join(dir, "gateway.lock"), String(process.pid))
      const message = failure(await svc(["project", "list"], { DATA_DIR: dir }), ExitCode.storeUnavailable)
      expect(message).toBe(
        `svc: the store cannot be used: the embedded store in ${dir} is in use by process ${process.pid}; stop it first, or use the admin HTTP API`
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("reports an invalid store setting", async () => {
    const message = failure(
      await svc(["project", "list"], { DATA_DIR: embeddedDir, DATABASE_POOL_MAX: "many" }),
      ExitCode.storeUnavailable
    )
    expect(message).toMatch(/^svc: the store cannot be used: .*DATABASE_POOL_MAX/)
  }, 60_000)
})

describe("svc failures of no other kind (exit 1)", () => {
  const command = { name: "svc key list", usage: "svc key list --project text", unknown: undefined }

  it("an unexpected defect is `internal`, with its message and no stack", () => {
    expect(classify(Cause.die(new Error("boom")), command)).toEqual({
      error: "internal",
      message: "unexpected error: boom",
      exitCode: ExitCode.failure
    })
  })

  it("another wire error keeps its code", () => {
    expect(classify(Cause.fail(new Forbidden({ message: "no" })), command)).toEqual({
      error: "forbidden",
      message: "no",
      exitCode: ExitCode.failure
    })
  })
})

const hasScript = spawnSync("script", ["--version"]).status === 0

describe.runIf(hasScript)("svc on a terminal", () => {
  /** `svc --help` with a pseudo-terminal as standard output (util-linux `script`). */
  const onTerminal = (extraEnv: Record<string, string>) => {
    const { NO_COLOR: _, ...inherited } = process.env
    const bin = path.resolve(import.meta.dirname, "../../../bin/svc.mjs")
    return spawnSync("script", ["-qec", `"${process.execPath}" "${bin}" --help`, "/dev/null"], {
      env: { ...inherited, ...extraEnv },
      encoding: "utf8"
    }).stdout
  }

  it("colours help, unless NO_COLOR is set", () => {
    expect(onTerminal({})).toContain(ESC)
    const plain = onTerminal({ NO_COLOR: "1" })
    expect(plain).toContain("USAGE")
    expect(plain).not.toContain(ESC)
  }, 60_000)
})
