import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { fn } from "../platform/telemetry/Traced.js"

/** Claimed anonymous workspaces (by attachment key segment), and where they went. */
export class WorkspaceClaimsRepo extends Effect.Service<WorkspaceClaimsRepo>()("svc/WorkspaceClaimsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return {
      record: fn("WorkspaceClaimsRepo.record")(
        (projectId: string, fromSegment: string, toWorkspace: string) =>
          sql`INSERT INTO workspace_claims (project_id, from_segment, to_workspace)
            VALUES (${projectId}, ${fromSegment}, ${toWorkspace})
            ON CONFLICT (project_id, from_segment) DO UPDATE SET to_workspace = excluded.to_workspace, claimed_at = now()`.pipe(
            Effect.asVoid
          ),
        Effect.orDie
      ),
      /** true when the workspace of `fromSegment` was claimed into `workspace`. */
      claimedInto: fn("WorkspaceClaimsRepo.claimedInto")(
        (projectId: string, fromSegment: string, workspace: string) =>
          sql`SELECT 1 AS one FROM workspace_claims
            WHERE project_id = ${projectId} AND from_segment = ${fromSegment} AND to_workspace = ${workspace}`.pipe(
            Effect.map((rows) => rows.length > 0)
          ),
        Effect.orDie
      )
    } as const
  })
}) {}
