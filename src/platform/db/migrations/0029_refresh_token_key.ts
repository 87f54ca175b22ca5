import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A refresh token's hash is unique within its project, not across projects
 * (issue 28: every unique key of a table distributed by project starts with
 * project_id, docs/operations.md "Sharding by project"). Every lookup names
 * the project already (src/auth/RefreshTokensRepo.ts), so the new key serves
 * it as the old one did.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE refresh_tokens DROP CONSTRAINT refresh_tokens_token_hash_key`
  yield* sql`ALTER TABLE refresh_tokens ADD CONSTRAINT refresh_tokens_token_hash_key UNIQUE (project_id, token_hash)`
})
