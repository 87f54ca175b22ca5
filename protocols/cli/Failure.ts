/**
 * Every way `svc` can fail, as a code, a message and an exit status
 * (docs/cli.md has the table). The codes are the REST wire errors' where they
 * mean the same (schema/Errors.ts).
 */
import * as ValidationError from "@effect/cli/ValidationError"
import * as Cause from "effect/Cause"
import * as ConfigError from "effect/ConfigError"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { InvalidRequest, NotFound } from "../../schema/Errors.js"
import { isStoreUnavailable } from "../../src/platform/Defects.js"
import { plainText } from "./Output.js"

export const ExitCode = {
  success: 0,
  /** Anything not below: a fault of svc or of the data it read. */
  failure: 1,
  /** The command line is wrong: unknown command or option, missing option, refused value. */
  usage: 2,
  notFound: 3,
  /** The store cannot be opened or reached, or its settings are invalid. */
  storeUnavailable: 4,
  /** Stopped by SIGINT or SIGTERM (128 + 2). */
  interrupted: 130
} as const

export interface Failure {
  readonly error: string
  readonly message: string
  readonly exitCode: number
  /** For a usage error: the command's usage line. */
  readonly usage?: string | undefined
  /** For a usage error: the command whose `--help` tells more. */
  readonly command?: string | undefined
  /** For a refused value: the admin API's issues (`path`, `message`). */
  readonly issues?: ReadonlyArray<{ readonly path: string; readonly message: string }> | undefined
}

/** The store could not be opened (app/cli.ts turns its layer's failure into this). */
export class StoreUnavailable extends Data.TaggedError("StoreUnavailable")<{ readonly message: string }> {}

/** The command a command line names, as far as it goes, and the word where an unknown command stands. */
export interface NamedCommand {
  readonly name: string
  readonly usage: string
  readonly unknown: string | undefined
}

/** A store layer's failure, as a StoreUnavailable that says why (never a stack). */
export const storeUnavailable = (cause: Cause.Cause<unknown>): StoreUnavailable =>
  new StoreUnavailable({ message: `the store cannot be used: ${describe(Cause.squash(cause))}` })

/** An error's message and those of its causes (a driver's error says what the wrapper's does not). */
const describe = (error: unknown, depth = 0): string => {
  if (ConfigError.isConfigError(error)) return String(error)
  if (typeof error !== "object" || error === null) return String(error)
  const own =
    "message" in error && typeof error.message === "string" && error.message !== ""
      ? error.message
      : "code" in error
        ? String(error.code)
        : ""
  const cause = "cause" in error && depth < 3 ? describe(error.cause, depth + 1) : ""
  return [own, cause].filter((part) => part !== "" && part !== "undefined").join(": ") || "unknown error"
}

/** Another wire error of schema/Errors.ts (`{ error, message }`), under its own code. */
const isWireError = (error: unknown): error is { readonly error: string; readonly message: string } =>
  typeof error === "object" &&
  error !== null &&
  "error" in error &&
  typeof error.error === "string" &&
  "message" in error &&
  typeof error.message === "string"

/** A help document's paragraphs on one line. */
const oneLine = (text: string) =>
  text
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, " ").trim())
    .filter((paragraph) => paragraph !== "")
    .join("; ")

/** What went wrong, from the cause a command ended with. `command` is the one the command line named. */
export const classify = (cause: Cause.Cause<unknown>, command: NamedCommand): Failure => {
  const error = Cause.squash(cause)
  if (ValidationError.isValidationError(error)) {
    // @effect/cli names the top command when a group's command is unknown: name the word and the group.
    const unknownCommand = ValidationError.isCommandMismatch(error) && command.unknown !== undefined
    return {
      error: "invalid_request",
      message: unknownCommand
        ? `unknown command '${command.unknown}' for ${command.name}`
        : oneLine(plainText(error.error)),
      exitCode: ExitCode.usage,
      usage: command.usage,
      command: command.name
    }
  }
  if (error instanceof InvalidRequest) {
    return { error: "invalid_request", message: error.message, exitCode: ExitCode.usage, issues: error.issues }
  }
  if (error instanceof NotFound) return { error: "not_found", message: error.message, exitCode: ExitCode.notFound }
  if (error instanceof StoreUnavailable) {
    return { error: "store_unavailable", message: error.message, exitCode: ExitCode.storeUnavailable }
  }
  if (isStoreUnavailable(error)) {
    return {
      error: "store_unavailable",
      message: `the store cannot be reached: ${describe(error)}`,
      exitCode: ExitCode.storeUnavailable
    }
  }
  if (isWireError(error)) return { error: error.error, message: error.message, exitCode: ExitCode.failure }
  return { error: "internal", message: `unexpected error: ${describe(error)}`, exitCode: ExitCode.failure }
}

/** The failure on standard error: one JSON object with `--json`, else `svc: message` and, for usage errors, the usage. */
export const report = (failure: Failure, json: boolean): Effect.Effect<void> => {
  if (json) {
    const { exitCode: _, command: __, ...body } = failure
    return Console.error(JSON.stringify(body))
  }
  const lines = [`svc: ${failure.message}`]
  if (failure.usage !== undefined) lines.push(`usage: ${failure.usage}`)
  if (failure.command !== undefined) lines.push(`more: ${failure.command} --help`)
  return Console.error(lines.join("\n"))
}
