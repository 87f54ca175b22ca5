import * as Layer from "effect/Layer"
import { Alerts } from "../src/alerts/Alerts.js"
import { ApiKeys } from "../src/auth/ApiKeys.js"
import { Issuers } from "../src/auth/Issuers.js"
import { Sessions } from "../src/auth/Sessions.js"
import { SigningKeys } from "../src/auth/SigningKeys.js"
import { Tokens } from "../src/auth/Tokens.js"
import { DashboardSessions } from "../src/dashboard/Sessions.js"
import { Erasure } from "../src/erasure/Erasure.js"
import { Evaluators } from "../src/evaluators/Evaluators.js"
import { Events } from "../src/events/Events.js"
import { Files } from "../src/files/Files.js"
import { RateLimiter } from "../src/platform/RateLimiter.js"
import { Readiness } from "../src/platform/Readiness.js"
import { Origins } from "../src/projects/Origins.js"
import { ProjectAdmin } from "../src/projects/ProjectAdmin.js"
import { ProjectSettings } from "../src/projects/ProjectSettings.js"
import { SdkClients } from "../src/projects/SdkClients.js"
import { Retention } from "../src/retention/Retention.js"
import { Runs } from "../src/runs/Runs.js"
import { Scores } from "../src/scores/Scores.js"
import { Search } from "../src/search/Search.js"
import { Messages } from "../src/threads/Messages.js"
import { Threads } from "../src/threads/Threads.js"
import { Titles } from "../src/titles/Titles.js"
import { Topics } from "../src/topics/Topics.js"
import { Traces } from "../src/traces/Traces.js"
import { Usage } from "../src/usage/Usage.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import { ImplementationsLive } from "./Implementations.js"

/**
 * Every service the protocols use, over the chosen implementations (blob
 * store, title generator, evaluator model); they need only a SqlClient.
 */
const UseCases = Layer.mergeAll(
  Threads.Default,
  Messages.Default,
  ProjectAdmin.Default,
  ApiKeys.Default,
  SdkClients.Default,
  SigningKeys.Default,
  Sessions.Default,
  RateLimiter.Default,
  Origins.Default,
  Issuers.Default,
  Tokens.Default,
  Usage.Default,
  Runs.Default,
  Traces.Default,
  Search.Default,
  Topics.Default,
  Scores.Default,
  Events.Default,
  Titles.Default,
  Readiness.Default,
  // The same layer the use cases depend on (memoized): one subscriptions cache per gateway.
  Webhooks.Default,
  Alerts.Default,
  Evaluators.Default,
  Retention.Default,
  Files.Default,
  Erasure.Default,
  DashboardSessions.Default
)

/** The project settings read every other setting's service: they sit above the use cases. */
export const ServicesLive = ProjectSettings.Default.pipe(
  Layer.provideMerge(UseCases),
  Layer.provideMerge(ImplementationsLive)
)
