/**
 * `svc`: the admin command line over the same services as the admin HTTP API,
 * straight on the store (app/cli.ts picks it from DATABASE_URL / DATA_DIR). With the embedded
 * store the gateway must be stopped (PGlite is single-process); use the admin
 * HTTP API while it runs.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AllowedOrigins, CreateProject, ExternalIssuer, Plan, TestUserPrefixes } from "../../schema/Admin.js"
import { Limits } from "../../schema/Limits.js"
import { Issuers } from "../../src/auth/Issuers.js"
import { Origins } from "../../src/Origins.js"
import { ProjectAdmin } from "../../src/ProjectAdmin.js"

class CliInputError extends Data.TaggedError("CliInputError")<{ readonly message: string }> {}

/** Decodes command-line input with the admin API's own request schema, so both refuse the same values. */
const decodeInput = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Effect.Effect<A, CliInputError> =>
  Schema.decodeUnknown(schema)(input).pipe(
    Effect.mapError((error) => new CliInputError({ message: ParseResult.TreeFormatter.formatErrorSync(error) }))
  )

const json = Options.boolean("json").pipe(Options.withDescription("print JSON (the admin API's shape)"))
const projectId = Options.text("project").pipe(Options.withDescription("project id"))

const print = (asJson: boolean, value: unknown, text: string) =>
  Console.log(asJson ? JSON.stringify(value, null, 2) : text)

const iso = (date: Date | null) => (date === null ? "never" : date.toISOString())

const projectCreate = Command.make(
  "create",
  { name: Options.text("name").pipe(Options.withDescription("project name")), json },
  ({ json, name }) =>
    Effect.gen(function* () {
      const payload = yield* decodeInput(CreateProject, { name })
      const created = yield* (yield* ProjectAdmin).create(payload.name)
      yield* print(json, created, `project ${created.project_id} created\nAPI key (shown once): ${created.api_key}`)
    })
)

const projectList = Command.make("list", { json }, ({ json }) =>
  Effect.gen(function* () {
    const projects = yield* (yield* ProjectAdmin).list()
    yield* print(
      json,
      { projects },
      projects.map((project) => `${project.project_id}\t${project.plan}\t${project.name}`).join("\n") || "no projects"
    )
  })
)

const projectPlan = Command.make(
  "plan",
  {
    projectId,
    plan: Options.choice("plan", Plan.literals).pipe(Options.withDescription(Plan.literals.join(", "))),
    json
  },
  ({ json, plan, projectId }) =>
    Effect.gen(function* () {
      const project = yield* (yield* ProjectAdmin).setPlan(projectId, plan)
      yield* print(json, project, `project ${project.project_id} is on the ${project.plan} plan`)
    })
)

const projectTestUsers = Command.make(
  "test-users",
  {
    projectId,
    prefixes: Options.text("prefix").pipe(
      Options.repeated,
      Options.withDescription("a user id prefix left out of usage figures; repeat it; none lists the current ones")
    ),
    clear: Options.boolean("clear").pipe(Options.withDescription("remove every prefix")),
    json
  },
  ({ clear, json, prefixes, projectId }) =>
    Effect.gen(function* () {
      const projects = yield* ProjectAdmin
      const saved = clear
        ? yield* projects.setTestUserPrefixes(projectId, [])
        : prefixes.length === 0
          ? yield* projects.testUserPrefixes(projectId)
          : yield* projects.setTestUserPrefixes(
              projectId,
              (yield* decodeInput(TestUserPrefixes, { prefixes })).prefixes
            )
      yield* print(json, { prefixes: saved }, saved.join("\n") || "no test user prefixes")
    })
)

const expiryChoices: Array<[string, number | null]> = [
  ["never", null],
  ...Limits.apiKey.expiryPresetsDays.map((days): [string, number] => [String(days), days])
]
const expiresInDays = Options.choiceWithValue("expires-in-days", expiryChoices).pipe(
  Options.withDefault(null),
  Options.withDescription("never (default), 7, 30, 90 or 365")
)

const keyCreate = Command.make(
  "create",
  { projectId, name: Options.optional(Options.text("name")), expiresInDays, json },
  ({ expiresInDays, json, name, projectId }) =>
    Effect.gen(function* () {
      const created = yield* (yield* ProjectAdmin).createKey(projectId, {
        name: Option.getOrUndefined(name),
        expiresInDays
      })
      yield* print(
        json,
        created,
        `key ${created.key_id} created (expires ${iso(created.expires_at)})\nAPI key (shown once): ${created.api_key}`
      )
    })
)

const keyList = Command.make("list", { projectId, json }, ({ json, projectId }) =>
  Effect.gen(function* () {
    const keys = yield* (yield* ProjectAdmin).listKeys(projectId)
    yield* print(
      json,
      { api_keys: keys },
      keys
        .map(
          (key) =>
            `${key.key_id}\t${key.prefix}…\t${key.revoked_at ? "revoked" : `expires ${iso(key.expires_at)}`}\t${key.name ?? ""}`
        )
        .join("\n") || "no keys"
    )
  })
)

const keyRevoke = Command.make("revoke", { projectId, keyId: Options.text("key") }, ({ keyId, projectId }) =>
  Effect.gen(function* () {
    yield* (yield* ProjectAdmin).revokeKey(projectId, keyId)
    yield* Console.log(`key ${keyId} revoked`)
  })
)

const originsList = Command.make("list", { projectId, json }, ({ json, projectId }) =>
  Effect.gen(function* () {
    const origins = yield* (yield* Origins).list(projectId)
    yield* print(json, { origins }, origins.join("\n") || "no allowed origins")
  })
)

const originsSet = Command.make(
  "set",
  {
    projectId,
    origins: Options.text("origin").pipe(Options.repeated, Options.withDescription("an allowed origin; repeat it")),
    json
  },
  ({ json, origins, projectId }) =>
    Effect.gen(function* () {
      const payload = yield* decodeInput(AllowedOrigins, { origins })
      const saved = yield* (yield* Origins).replace(projectId, payload.origins)
      yield* print(json, { origins: saved }, saved.length === 0 ? "no allowed origins" : saved.join("\n"))
    })
)

const issuerSet = Command.make(
  "set",
  {
    projectId,
    issuer: Options.text("issuer"),
    jwksUrl: Options.text("jwks-url"),
    audience: Options.text("audience"),
    userClaim: Options.optional(Options.text("user-claim")),
    workspaceClaim: Options.optional(Options.text("workspace-claim")),
    json
  },
  (options) =>
    Effect.gen(function* () {
      const settings = yield* decodeInput(ExternalIssuer, {
        issuer: options.issuer,
        jwks_url: options.jwksUrl,
        audience: options.audience,
        ...Option.match(options.userClaim, { onNone: () => ({}), onSome: (claim) => ({ user_claim: claim }) }),
        ...Option.match(options.workspaceClaim, { onNone: () => ({}), onSome: (claim) => ({ workspace_claim: claim }) })
      })
      const saved = yield* (yield* Issuers).set(options.projectId, settings)
      yield* print(options.json, saved, `tokens of ${saved.issuer} for ${saved.audience} are accepted`)
    })
)

const issuerShow = Command.make("show", { projectId, json }, ({ json, projectId }) =>
  Effect.gen(function* () {
    const settings = Option.getOrNull(yield* (yield* Issuers).get(projectId))
    yield* print(
      json,
      settings,
      settings === null ? "no external issuer" : `${settings.issuer} (${settings.jwks_url}) for ${settings.audience}`
    )
  })
)

const issuerClear = Command.make("clear", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const cleared = yield* (yield* Issuers).clear(projectId)
    yield* Console.log(cleared ? "external issuer removed" : "no external issuer")
  })
)

/** The service each group of commands uses, as a layer the composition root builds (on its store). */
export interface CliServices<E> {
  readonly projects: Layer.Layer<ProjectAdmin, E>
  readonly origins: Layer.Layer<Origins, E>
  readonly issuers: Layer.Layer<Issuers, E>
}

/**
 * The `svc` command line. Each command is given only the service it uses
 * (its layer built when the command runs), so a command opens nothing else:
 * no signing key made, no usage flush started.
 */
export const runCli = <E>(services: CliServices<E>) => {
  const using =
    <LA, LE>(layer: Layer.Layer<LA, LE>) =>
    <Name extends string, R, CE, A>(command: Command.Command<Name, R, CE, A>) =>
      Command.provide(command, layer)
  const projects = using(services.projects)
  const origins = using(services.origins)
  const issuers = using(services.issuers)
  const svc = Command.make("svc").pipe(
    Command.withSubcommands([
      Command.make("project").pipe(
        Command.withSubcommands([
          projects(projectCreate),
          projects(projectList),
          projects(projectPlan),
          projects(projectTestUsers)
        ])
      ),
      Command.make("key").pipe(Command.withSubcommands([projects(keyCreate), projects(keyList), projects(keyRevoke)])),
      Command.make("origins").pipe(Command.withSubcommands([origins(originsList), origins(originsSet)])),
      Command.make("issuer").pipe(
        Command.withSubcommands([issuers(issuerSet), issuers(issuerShow), issuers(issuerClear)])
      )
    ])
  )
  const run = Command.run(svc, { name: "svc", version: "0.1.0" })
  /** Wire errors (`{ error, message }`) and store errors end the command with their message and exit code 1. */
  return (argv: ReadonlyArray<string>) =>
    run(argv).pipe(
      Effect.catchAll((error) =>
        Console.error(`svc: ${describeFailure(error)}`).pipe(Effect.zipRight(Effect.sync(() => process.exit(1))))
      )
    )
}

const describeFailure = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    return error.message
  }
  return String(error)
}
