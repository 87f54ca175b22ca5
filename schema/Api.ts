import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { AdminGroup } from "./Api/Admin.js"
import { AuthGroup } from "./Api/Auth.js"
import { EventsGroup } from "./Api/Events.js"
import { FilesGroup } from "./Api/Files.js"
import { MessagesGroup } from "./Api/Messages.js"
import { ProjectsGroup } from "./Api/Projects.js"
import { RunsGroup } from "./Api/Runs.js"
import { ScoresGroup } from "./Api/Scores.js"
import { ClaimGroup, SessionsGroup } from "./Api/Sessions.js"
import { ThreadsGroup } from "./Api/Threads.js"
import { TitlesGroup } from "./Api/Titles.js"
import { Internal, InvalidRequest, PayloadTooLarge, Unauthorized } from "./Errors.js"

export class Api extends HttpApi.make("svc")
  .add(ThreadsGroup)
  .add(MessagesGroup)
  .add(AuthGroup)
  .add(SessionsGroup)
  .add(ClaimGroup)
  .add(AdminGroup)
  .add(RunsGroup)
  .add(ScoresGroup)
  .add(EventsGroup)
  .add(ProjectsGroup)
  .add(TitlesGroup)
  .add(FilesGroup)
  .addError(InvalidRequest)
  .addError(Unauthorized)
  .addError(PayloadTooLarge)
  .addError(Internal)
  .prefix("/v1")
  .annotate(OpenApi.Title, "Svc conversation gateway")
  .annotate(OpenApi.Version, "1") {}
