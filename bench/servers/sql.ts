/**
 * The statements the gateway sends, as @effect/sql-pg compiles them: copied
 * from src/storage/{ApiKeysRepo,ThreadsRepo,MessagesRepo,RunsRepo}.ts with
 * every interpolation a parameter of its own, in the same order (checked
 * against the statement text the gateway hands to `pg`, on 2026-11-22, the run
 * statements after the run reports landed). Keep in step with those files.
 */

/** ApiKeysRepo.findActiveByHash; run once per key per API_KEY_CACHE_MS, as in src/auth/ApiKeys.ts. */
export const FIND_ACTIVE_KEY = `SELECT id, project_id, name, prefix, created_at, expires_at, revoked_at FROM api_keys
        WHERE key_hash = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`

/** ThreadsRepo.insert: project, id, workspace, user, title, external id, metadata JSON, last_message_at ISO. */
export const INSERT_THREAD = `INSERT INTO threads (project_id, id, workspace_id, user_id, title, external_id, metadata, last_message_at)
        VALUES ($1, $2, $3, $4, $5,
          $6, $7, $8)`

/**
 * MessagesRepo.append, 15 parameters: project, workspace, thread, project,
 * thread, parent, project, id, parent, user, format, content JSON, parent,
 * project, thread.
 */
export const APPEND_MESSAGE = `
        WITH t AS (
          SELECT id FROM threads
          WHERE project_id = $1 AND workspace_id = $2 AND id = $3
        ), p AS (
          SELECT height FROM messages
          WHERE project_id = $4 AND thread_id = $5 AND id = $6
        ), ins AS (
          INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
          SELECT $7, t.id, $8, $9, $10,
            COALESCE((SELECT height + 1 FROM p), 0), $11, $12::jsonb
          FROM t
          WHERE $13::text IS NULL OR EXISTS (SELECT 1 FROM p)
          RETURNING created_at
        ), bump AS (
          UPDATE threads SET last_message_at = GREATEST(threads.last_message_at, ins.created_at), updated_at = ins.created_at
          FROM ins
          WHERE threads.project_id = $14 AND threads.id = $15
        )
        SELECT EXISTS (SELECT 1 FROM t) AS thread_found, EXISTS (SELECT 1 FROM ins) AS inserted`

/** ThreadsRepo.exists (Threads.requireVisible, run before every message list). */
export const THREAD_EXISTS = `SELECT 1 AS one FROM threads
        WHERE project_id = $1 AND workspace_id = $2 AND id = $3`

/** MessagesRepo.list without format / after filters: project, thread, limit. */
export const LIST_MESSAGES = `SELECT id, parent_id, height, created_at, updated_at, format, content::text AS content
        FROM messages
        WHERE project_id = $1 AND thread_id = $2
          
          
        ORDER BY id LIMIT $3`

/**
 * RunsRepo.insert, 30 parameters: project, id, workspace, user, message id,
 * status, outcome type, model id, provider, provider type, input, output,
 * reasoning and cached input tokens, duration, first token, total steps, tool
 * call count, error, error code, trace id, tags JSON, environment, release,
 * detail JSON, idempotency key, request hash, project, workspace, thread.
 */
export const INSERT_RUN = `
          INSERT INTO runs (project_id, id, thread_id, workspace_id, user_id, message_id, status, outcome_type,
            model_id, provider, provider_type, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens,
            duration_ms, first_token_ms, total_steps, tool_call_count, error, error_code, trace_id, tags,
            environment, release, detail, idempotency_key, request_hash)
          SELECT $1, $2, t.id, $3, $4, $5,
            $6, $7, $8, $9, $10,
            $11, $12, $13, $14,
            $15, $16, $17, $18, $19,
            $20, $21, ARRAY(SELECT jsonb_array_elements_text($22::jsonb)), $23,
            $24, $25::jsonb, $26, $27
          FROM threads t
          WHERE t.project_id = $28 AND t.workspace_id = $29 AND t.id = $30
          ON CONFLICT (project_id, workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
          RETURNING id`

/** RunsRepo.list without filters (GET /v1/projects/runs?limit=N): project, limit. */
export const LIST_RUNS = `SELECT id, thread_id, workspace_id, user_id, message_id, status, outcome_type, model_id, provider,
  provider_type, input_tokens::float8 AS input_tokens, output_tokens::float8 AS output_tokens,
  reasoning_tokens::float8 AS reasoning_tokens, cached_input_tokens::float8 AS cached_input_tokens,
  duration_ms::float8 AS duration_ms, first_token_ms::float8 AS first_token_ms, total_steps, tool_call_count,
  error, error_code, trace_id, tags, environment, release, created_at FROM runs WHERE project_id = $1
        ORDER BY id DESC LIMIT $2`
