import * as Layer from "effect/Layer"
import { ApiKeys } from "./auth/ApiKeys.js"
import { Issuers } from "./auth/Issuers.js"
import { Sessions } from "./auth/Sessions.js"
import { SigningKeys } from "./auth/SigningKeys.js"
import { Tokens } from "./auth/Tokens.js"
import { Events } from "./Events.js"
import { Messages } from "./Messages.js"
import { Origins } from "./Origins.js"
import { Projects } from "./Projects.js"
import { RateLimiter } from "./RateLimiter.js"
import { Runs } from "./Runs.js"
import { Scores } from "./Scores.js"
import { SdkClients } from "./SdkClients.js"
import { Threads } from "./Threads.js"
import { Titles } from "./Titles.js"
import { Usage } from "./Usage.js"

/** Every service the protocols use; each needs only a SqlClient. */
export const ServicesLive = Layer.mergeAll(
  Threads.Default,
  Messages.Default,
  Projects.Default,
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
  Scores.Default,
  Events.Default,
  Titles.Default
)
