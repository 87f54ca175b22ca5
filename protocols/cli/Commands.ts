/**
 * `svc`: the admin command line over the same services as the admin HTTP API,
 * straight on the store (app/cli.ts picks it from DATABASE_URL / DATA_DIR). With the embedded
 * store the gateway must be stopped (PGlite is single-process); use the admin
 * HTTP API while it runs.
 */

import { userInfo } from "node:os"
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { AllowedOrigins, CreateProject, ExternalIssuer, Plan, TestUserPrefixes } from "../../schema/Admin.js"
import { UserPath } from "../../schema/Erasure.js"
import { InvalidRequest, Issue } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { Issuers } from "../../src/auth/Issuers.js"
import { Erasure } from "../../src/erasure/Erasure.js"
import { Origins } from "../../src/projects/Origins.js"
import { ProjectAdmin } from "../../src/projects/ProjectAdmin.js"
import { alertCreate, alertDelete, alertHistory, alertList, alertUpdate } from "./AlertCommands.js"
import { evaluatorCreate, evaluatorDelete, evaluatorList, evaluatorUpdate } from "./EvaluatorCommands.js"
import { print } from "./Output.js"
import { jobsList, jobsRun, projectRetention, projectSettings, projectTopicCeiling } from "./SettingsCommands.js"
import { webhookCreate, webhookDelete, webhookDeliveries, webhookList, webhookRedeliver } from "./WebhookCommands.js"

/** The option that gave a request field, where its name is not the field's with dashes. */
const repeatedOptions: Record<string, string> = {
  origins: "--origin",
  prefixes: "--prefix",
  // Positional arguments (svc user erase <project_id> <user_id>).
  project_id: "<project_id>",
  user_id: "<user_id>"
}
const optionOf = (field: PropertyKey | undefined) =>
  field === undefined ? "" : (repeatedOptions[String(field)] ?? `--${String(field).replaceAll("_", "-")}`)

/** The value the command line gave at `path`, quoted, when it is a string. */
const given = (input: unknown, path: ReadonlyArray<PropertyKey>): string => {
  const value = path.reduce<unknown>(
    (at, key) => (typeof at === "object" && at !== null ? (at as Record<PropertyKey, unknown>)[key] : undefined),
    input
  )
  return typeof value === "string" ? ` '${value}'` : ""
}

/**
 * Decodes command-line input with the admin API's own request schema, so both
 * refuse the same values, with the same issues (`path`, `message`); the
 * message names the option.
 */
const decodeInput = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Effect.Effect<A, InvalidRequest> =>
  Schema.decodeUnknown(schema, { errors: "all" })(input).pipe(
    Effect.mapError((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      return new InvalidRequest({
        message: issues
          .map((issue) => `${optionOf(issue.path[0])}${given(input, issue.path)}: ${issue.message}`)
          .join("; "),
        issues: issues.map((issue) => new Issue({ path: issue.path.map(String).join("."), message: issue.message }))
      })
    })
  )

const projectId = Options.text("project").pipe(Options.withDescription("project id"))

const iso = (date: Date | null) => (date === null ? "never" : date.toISOString())

const projectCreate = Command.make(
  "create",
  { name: Options.text("name").pipe(Options.withDescription("project name")) },
  ({ name }) =>
    Effect.gen(function* () {
      const payload = yield* decodeInput(CreateProject, { name })
      const created = yield* (yield* ProjectAdmin).create(payload.name)
      yield* print(created, `project ${created.project_id} created\nAPI key (shown once): ${created.api_key}`)
    })
)

const projectList = Command.make("list", {}, () =>
  Effect.gen(function* () {
    const projects = yield* (yield* ProjectAdmin).list()
    yield* print(
      { projects },
      projects.map((project) => `${project.project_id}\t${project.plan}\t${project.name}`).join("\n") || "no projects"
    )
  })
)

const projectPlan = Command.make(
  "plan",
  {
    projectId,
    plan: Options.choice("plan", Plan.literals).pipe(Options.withDescription(Plan.literals.join(", ")))
  },
  ({ plan, projectId }) =>
    Effect.gen(function* () {
      const project = yield* (yield* ProjectAdmin).setPlan(projectId, plan)
      yield* print(project, `project ${project.project_id} is on the ${project.plan} plan`)
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
    clear: Options.boolean("clear").pipe(Options.withDescription("remove every prefix"))
  },
  ({ clear, prefixes, projectId }) =>
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
      yield* print({ prefixes: saved }, saved.join("\n") || "no test user prefixes")
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
  { projectId, name: Options.optional(Options.text("name")), expiresInDays },
  ({ expiresInDays, name, projectId }) =>
    Effect.gen(function* () {
      const created = yield* (yield* ProjectAdmin).createKey(projectId, {
        name: Option.getOrUndefined(name),
        expiresInDays
      })
      yield* print(
        created,
        `key ${created.key_id} created (expires ${iso(created.expires_at)})\nAPI key (shown once): ${created.api_key}`
      )
    })
)

const keyList = Command.make("list", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const keys = yield* (yield* ProjectAdmin).listKeys(projectId)
    yield* print(
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
    yield* print({ key_id: keyId, revoked: true }, `key ${keyId} revoked`)
  })
)

const originsList = Command.make("list", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const origins = yield* (yield* Origins).list(projectId)
    yield* print({ origins }, origins.join("\n") || "no allowed origins")
  })
)

const originsSet = Command.make(
  "set",
  {
    projectId,
    origins: Options.text("origin").pipe(Options.repeated, Options.withDescription("an allowed origin; repeat it"))
  },
  ({ origins, projectId }) =>
    Effect.gen(function* () {
      const payload = yield* decodeInput(AllowedOrigins, { origins })
      const saved = yield* (yield* Origins).replace(projectId, payload.origins)
      yield* print({ origins: saved }, saved.length === 0 ? "no allowed origins" : saved.join("\n"))
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
    workspaceClaim: Options.optional(Options.text("workspace-claim"))
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
      yield* print(saved, `tokens of ${saved.issuer} for ${saved.audience} are accepted`)
    })
)

const issuerShow = Command.make("show", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const settings = Option.getOrNull(yield* (yield* Issuers).get(projectId))
    yield* print(
      settings,
      settings === null ? "no external issuer" : `${settings.issuer} (${settings.jwks_url}) for ${settings.audience}`
    )
  })
)

const issuerClear = Command.make("clear", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const cleared = yield* (yield* Issuers).clear(projectId)
    yield* print({ removed: cleared }, cleared ? "external issuer removed" : "no external issuer")
  })
)

// Erasure of one user's data (docs/decisions.md, "Erasure of one user").

/** Who runs `svc user erase`: the operating-system user, as far as it is known. */
const cliRequester = (): string => {
  try {
    return `cli:${userInfo().username}`
  } catch {
    return "cli"
  }
}

const erasureText = (erasure: {
  readonly erasure_id: string
  readonly deleted: Readonly<Record<string, number>>
  readonly usage_rows_anonymized: number
}) =>
  [
    `erasure ${erasure.erasure_id}`,
    ...Object.entries(erasure.deleted).map(([kind, count]) => `${kind}\t${count}`),
    `usage rows anonymized\t${erasure.usage_rows_anonymized}`
  ].join("\n")

const userErase = Command.make(
  "erase",
  {
    projectId,
    userId: Options.text("user").pipe(Options.withDescription("the user id whose data is erased"))
  },
  ({ projectId, userId }) =>
    Effect.gen(function* () {
      const path = yield* decodeInput(UserPath, { project_id: projectId, user_id: userId })
      const erasure = yield* (yield* Erasure).erase(path.project_id, path.user_id, cliRequester())
      yield* print(erasure, erasureText(erasure))
    })
)

const userErasures = Command.make("erasures", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const erasures = yield* (yield* Erasure).list(projectId)
    yield* print(
      { erasures },
      erasures
        .map(
          (erasure) =>
            `${erasure.erasure_id}\t${erasure.finished_at.toISOString()}\t${erasure.requested_by}\tuser sha256 ${erasure.user_sha256}`
        )
        .join("\n") || "no erasures"
    )
  })
)

/** The commands, by group: each group's commands use one service. */
export const groups = {
  project: [
    projectCreate,
    projectList,
    projectPlan,
    projectTestUsers,
    projectSettings,
    projectRetention,
    projectTopicCeiling
  ],
  key: [keyCreate, keyList, keyRevoke],
  origins: [originsList, originsSet],
  issuer: [issuerSet, issuerShow, issuerClear],
  user: [userErase, userErasures],
  jobs: [jobsList, jobsRun],
  evaluator: [evaluatorCreate, evaluatorList, evaluatorUpdate, evaluatorDelete],
  webhook: [webhookCreate, webhookList, webhookDelete, webhookDeliveries, webhookRedeliver],
  alert: [alertCreate, alertList, alertUpdate, alertDelete, alertHistory]
} as const
