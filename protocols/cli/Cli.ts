/**
 * `svc`: the admin command line over the same services as the admin HTTP API,
 * straight on the store (app/cli.ts picks it from DATABASE_URL / DATA_DIR).
 * With the embedded store the gateway must be stopped (PGlite is
 * single-process); use the admin HTTP API while it runs. docs/cli.md is its
 * manual: output, errors, exit statuses, colour.
 */
import type * as CliApp from "@effect/cli/CliApp"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Command from "@effect/cli/Command"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { Alerts } from "../../src/alerts/Alerts.js"
import type { Issuers } from "../../src/auth/Issuers.js"
import type { Erasure } from "../../src/erasure/Erasure.js"
import type { Evaluators } from "../../src/evaluators/Evaluators.js"
import type { Jobs } from "../../src/platform/jobs/Jobs.js"
import type { Origins } from "../../src/projects/Origins.js"
import type { ProjectAdmin } from "../../src/projects/ProjectAdmin.js"
import type { ProjectSettings } from "../../src/projects/ProjectSettings.js"
import type { Retention } from "../../src/retention/Retention.js"
import type { Webhooks } from "../../src/webhooks/Webhooks.js"
import { groups } from "./Commands.js"
import { classify, ExitCode, type NamedCommand, report } from "./Failure.js"
import { colourWanted, JsonOutput, plainText, withCliConsole } from "./Output.js"

/** The service each group of commands uses, as a layer the composition root builds (on its store). */
export interface CliServices<E> {
  readonly projects: Layer.Layer<ProjectAdmin, E>
  readonly origins: Layer.Layer<Origins, E>
  readonly issuers: Layer.Layer<Issuers, E>
  readonly erasure: Layer.Layer<Erasure, E>
  /** The project settings read, retention and the topic ceiling (the `project` group). */
  readonly settings: Layer.Layer<ProjectSettings | Retention, E>
  /** The job runner, without its timer. */
  readonly jobs: Layer.Layer<Jobs, E>
  /** Evaluators (create, list, update, delete). */
  readonly evaluators: Layer.Layer<Evaluators, E>
  /** Webhook subscriptions, their delivery log and redelivery (the deliveries are the gateway's job). */
  readonly webhooks: Layer.Layer<Webhooks, E>
  /** Alert rules and their history (checking and firing is the gateway's `alerts` job). */
  readonly alerts: Layer.Layer<Alerts, E>
}

type Group = keyof typeof groups

const commandNames = (group: Group): Array<string> =>
  groups[group].flatMap((command) => [...Descriptor.getNames(command.descriptor)])

/** `svc` or a group named without a command: a usage error (its `--help` shows the help). */
const groupCommand = <Name extends string>(name: Name, choices: ReadonlyArray<string>, description: string) =>
  Command.make(name, {}, () =>
    Effect.fail(ValidationError.missingSubcommand(HelpDoc.p(`missing command: use one of ${choices.join(", ")}`)))
  ).pipe(Command.withDescription(description))

const footer = HelpDoc.blocks([
  HelpDoc.h1("OUTPUT"),
  HelpDoc.p(
    "--json, anywhere on the command line: the result as one JSON document on standard output; a failure as one JSON object { error, message } on standard error."
  ),
  HelpDoc.p("Exit status: 0 done, 1 unexpected failure, 2 usage error, 3 not found, 4 store unavailable.")
])

/**
 * The `svc` command line, as a function of the command line (`process.argv`)
 * that prints the result or the failure and answers the exit status. Each
 * group is given only the service it uses (its layer built when a command
 * runs), so a command opens nothing else: no signing key made, no usage flush
 * started.
 */
export const runCli = <E>(services: CliServices<E>) => {
  const group = <G extends Group, S>(name: G, description: string, service: Layer.Layer<S, E>) =>
    groupCommand(name, commandNames(name), description).pipe(
      Command.withSubcommands(groups[name]),
      Command.provide(service)
    )
  const svc = groupCommand("svc", Object.keys(groups), "the svc-gateway admin command line").pipe(
    Command.withSubcommands([
      group("project", "create, list and configure projects", Layer.merge(services.projects, services.settings)),
      group("key", "create, list and revoke a project's API keys", services.projects),
      group("origins", "the browser origins allowed to call a project", services.origins),
      group("issuer", "the external identity provider a project accepts", services.issuers),
      group("user", "erase one user's data, and the log of erasures", services.erasure),
      group("jobs", "the background jobs: list them, run one now", services.jobs),
      group("evaluator", "the evaluators that label new runs or threads", services.evaluators),
      group("webhook", "outgoing webhooks: subscriptions, their deliveries, redelivery", services.webhooks),
      group("alert", "alert rules: a metric over a window, a threshold, a webhook; their history", services.alerts)
    ])
  )
  const run = Command.run(svc, { name: "svc", version: "0.1.0", footer })
  return (argv: ReadonlyArray<string>): Effect.Effect<number, never, CliApp.CliApp.Environment> =>
    Effect.gen(function* () {
      const [runtime = "node", script = "svc", ...args] = argv
      const { json, rest } = takeJsonFlag(args)
      const colour = !json && (yield* colourWanted)
      return yield* run([runtime, script, ...rest]).pipe(
        withCliConsole(colour),
        Effect.provideService(JsonOutput, json),
        Effect.as(ExitCode.success),
        Effect.catchAllCause((cause) => {
          const failure = classify(cause, commandNamed(rest))
          return Effect.as(report(failure, json), failure.exitCode)
        })
      )
    })
}

/**
 * `--json` is one flag for every command, wherever it stands (before `--`):
 * taken out before @effect/cli parses the rest, so no command can refuse it,
 * and known even when the rest does not parse, for the failure's format.
 */
const takeJsonFlag = (args: ReadonlyArray<string>) => {
  const end = args.indexOf("--")
  const options = end === -1 ? args : args.slice(0, end)
  const json = options.includes("--json")
  return { json, rest: json ? [...options.filter((arg) => arg !== "--json"), ...args.slice(options.length)] : args }
}

/** Usage lines by command (`key revoke`): `svc key revoke --project text --key text`. */
const usageLines = new Map(
  (Object.keys(groups) as Array<Group>).flatMap((group) =>
    groups[group].map((command): [string, string] => {
      const descriptor: Descriptor.Command<unknown> = command.descriptor
      const name = [...Descriptor.getNames(descriptor)].join(" ")
      const lines = Usage.enumerate(Descriptor.getUsage(descriptor), CliConfig.defaultConfig).map((span) =>
        plainText(HelpDoc.p(span))
      )
      return [`${group} ${name}`, `svc ${group} ${lines.join(" | ")}`]
    })
  )
)

const isGroup = (name: string | undefined): name is Group => name !== undefined && Object.hasOwn(groups, name)

/**
 * The command a command line names, as far as it goes (`svc`, `svc key`,
 * `svc key revoke`), with its usage line, and the word where a command was
 * expected but none is known (`svc key frob`: `frob`).
 */
export const commandNamed = (args: ReadonlyArray<string>): NamedCommand => {
  const [first, second] = args.filter((arg) => !arg.startsWith("-"))
  if (!isGroup(first)) {
    return { name: "svc", usage: `svc <${Object.keys(groups).join("|")}> <command> [options]`, unknown: first }
  }
  const usage = usageLines.get(`${first} ${second}`)
  if (usage !== undefined) return { name: `svc ${first} ${second}`, usage, unknown: undefined }
  return { name: `svc ${first}`, usage: `svc ${first} <${commandNames(first).join("|")}> [options]`, unknown: second }
}
