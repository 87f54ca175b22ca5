/**
 * How `svc` writes (docs/cli.md): one JSON document with `--json`, text
 * otherwise; colour only on a terminal without `NO_COLOR`.
 */
import { stripVTControlCharacters } from "node:util"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Doc from "@effect/printer/Doc"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"

/** `--json` was given: commands print their result as one JSON document. */
export class JsonOutput extends Context.Reference<JsonOutput>()("svc/cli/JsonOutput", { defaultValue: () => false }) {}

/** A command's result: its JSON document with `--json`, else its text. */
export const print = (value: unknown, text: string) =>
  Effect.flatMap(JsonOutput, (json) => Console.log(json ? JSON.stringify(value, null, 2) : text))

/** A help document as plain text (its colour and emphasis are annotations, dropped here). */
export const plainText = (doc: HelpDoc.HelpDoc): string =>
  Doc.render(Doc.unAnnotate(HelpDoc.toAnsiDoc(doc)), { style: "pretty" }).trim()

/** Colour on standard output: only on a terminal, and not when `NO_COLOR` is set to anything but "". */
export const colourWanted: Effect.Effect<boolean> = Config.string("NO_COLOR").pipe(
  Config.withDefault(""),
  Effect.map((noColor) => noColor === "" && process.stdout.isTTY === true),
  Effect.orElseSucceed(() => false)
)

/**
 * The console @effect/cli writes through while it parses and runs: its help
 * goes to standard output, without colour unless `colour`; its own rendering
 * of a usage error is dropped, since `svc` reports every failure itself
 * (Failure.ts), once, in the format asked for.
 */
export const withCliConsole =
  (colour: boolean) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Console.consoleWith((console) =>
      Effect.withConsole(effect, {
        ...console,
        log: (...args) => console.log(...(colour ? args : args.map(uncoloured))),
        error: () => Effect.void
      })
    )

const uncoloured = (arg: unknown) => (typeof arg === "string" ? stripVTControlCharacters(arg) : arg)
