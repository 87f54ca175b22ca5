/**
 * Claimed anonymous workspaces, as the feature that makes a claim (auth's
 * Sessions.claim) records them; Files reads them to let the new owner
 * download attachments kept under the anonymous workspace's key segment.
 */
import * as Effect from "effect/Effect"
import { WorkspaceClaimsRepo } from "./WorkspaceClaimsRepo.js"

export class WorkspaceClaims extends Effect.Service<WorkspaceClaims>()("svc/WorkspaceClaims", {
  dependencies: [WorkspaceClaimsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WorkspaceClaimsRepo
    return {
      /** The workspace of `fromSegment` now belongs to `toWorkspace` (within the claim's transaction). */
      record: repo.record
    } as const
  })
}) {}
