import * as HttpApi from "@effect/platform/HttpApi"
import { AuthGroup } from "../../schema/Api/Auth.js"
import { EventsGroup } from "../../schema/Api/Events.js"
import { FilesGroup } from "../../schema/Api/Files.js"
import { MessagesGroup } from "../../schema/Api/Messages.js"
import { ProjectsGroup } from "../../schema/Api/Projects.js"
import { RunsGroup } from "../../schema/Api/Runs.js"
import { ScoresGroup } from "../../schema/Api/Scores.js"
import { ClaimGroup } from "../../schema/Api/Sessions.js"
import { ThreadsGroup } from "../../schema/Api/Threads.js"

/**
 * What the client calls: the server's own groups from schema/ (the admin plane
 * and the anonymous session routes left out: the first takes another
 * credential, the second is the auth mode's business). An endpoint added to
 * one of these groups appears in the Effect client without client code.
 */
export const ClientApi = HttpApi.make("svc-client")
  .add(ThreadsGroup)
  .add(MessagesGroup)
  .add(ClaimGroup)
  .add(AuthGroup)
  .add(RunsGroup)
  .add(FilesGroup)
  .add(ScoresGroup)
  .add(EventsGroup)
  .add(ProjectsGroup)
  .prefix("/v1")

/** The groups of ClientApi, as HttpApiClient sees them. */
export type ClientGroups =
  typeof ClientApi extends HttpApi.HttpApi<infer _Id, infer Groups, infer _E, infer _R> ? Groups : never
