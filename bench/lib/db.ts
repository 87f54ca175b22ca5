/** The bench's own PostgreSQL database: created fresh, seeded, dropped at the end. */
import pg from "pg"
import { CONTENT_JSON, FORMAT } from "./payload.js"

export interface BenchDatabase {
  readonly name: string
  readonly url: string
  readonly drop: () => Promise<void>
}

const withClient = async <A>(url: string, f: (client: pg.Client) => Promise<A>): Promise<A> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 })
  await client.connect()
  try {
    return await f(client)
  } finally {
    await client.end()
  }
}

export const createDatabase = async (baseUrl: string): Promise<BenchDatabase> => {
  const name = `svc_bench_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  await withClient(baseUrl, (client) => client.query(`CREATE DATABASE ${name}`))
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  let dropped = false
  return {
    name,
    url: url.toString(),
    drop: async () => {
      if (dropped) return
      dropped = true
      await withClient(baseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`))
    }
  }
}

/**
 * Background rows so that the measured statements run against non-trivial
 * tables and indexes: `threads` threads of `perThread` ~1 KB messages each,
 * spread over 50 workspaces of the bench project. Ids are time-sortable like
 * the gateway's. Then VACUUM ANALYZE.
 */
export const seedBackground = async (
  url: string,
  projectId: string,
  threads: number,
  perThread: number
): Promise<void> => {
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO threads (project_id, id, workspace_id, user_id, last_message_at)
       SELECT $1, 'thread_00SEED' || lpad(g::text, 8, '0'), 'ws_seed_' || (g % 50), 'user_seed_' || (g % 500), now()
       FROM generate_series(1, $2::int) g`,
      [projectId, threads]
    )
    await client.query(
      `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
       SELECT $1, 'thread_00SEED' || lpad(t::text, 8, '0'), 'msg_00SEED' || lpad(t::text, 8, '0') || lpad(m::text, 4, '0'),
         NULL, 'user_seed_' || (t % 500), 0, $3, $4::jsonb
       FROM generate_series(1, $2::int) t, generate_series(1, $5::int) m`,
      [projectId, threads, FORMAT, CONTENT_JSON, perThread]
    )
    await client.query("VACUUM ANALYZE")
  })
}

export const vacuumAnalyze = (url: string): Promise<void> =>
  withClient(url, async (client) => {
    await client.query("VACUUM ANALYZE")
  })

/**
 * The pgbench targets: `messages`' and `runs`' columns, defaults, primary key
 * and indexes; no foreign key.
 */
export const createPgbenchTables = (url: string): Promise<void> =>
  withClient(url, async (client) => {
    await client.query(`CREATE TABLE bench_messages (LIKE messages INCLUDING DEFAULTS INCLUDING INDEXES)`)
    await client.query(`CREATE TABLE bench_runs (LIKE runs INCLUDING DEFAULTS INCLUDING INDEXES)`)
  })

/**
 * A project's run history for the list: 100 threads in 10 workspaces and
 * `runs` runs spread over them, one a second up to now, ids time-sortable
 * like the gateway's (`run_00SEED…` sorts before any id it makes). One run in
 * 20 is an error. Every run carries `detailJson` (the run_report workload's
 * 100-tool-call detail), so the list reads past large, TOASTed rows.
 */
export const seedRuns = async (url: string, projectId: string, runs: number, detailJson: string): Promise<void> => {
  await withClient(url, async (client) => {
    await client.query(
      `INSERT INTO threads (project_id, id, workspace_id, user_id, last_message_at)
       SELECT $1, 'thread_00RUNS' || lpad(g::text, 8, '0'), 'ws_runs_' || (g % 10), 'user_runs_' || g, now()
       FROM generate_series(1, 100) g`,
      [projectId]
    )
    await client.query(
      `INSERT INTO runs (project_id, id, thread_id, workspace_id, user_id, status, outcome_type, model_id, provider,
         provider_type, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, duration_ms,
         first_token_ms, total_steps, tool_call_count, error, error_code, trace_id, tags, environment, release,
         detail, created_at)
       SELECT $1, 'run_00SEED' || lpad(r::text, 8, '0'), 'thread_00RUNS' || lpad((r % 100 + 1)::text, 8, '0'),
         'ws_runs_' || ((r % 100 + 1) % 10), 'user_runs_' || (r % 100 + 1),
         CASE WHEN r % 20 = 0 THEN 'error' ELSE 'completed' END,
         NULL, CASE WHEN r % 3 = 0 THEN 'gpt-4o-mini' ELSE 'gpt-4o-2024-08-06' END, 'openai', 'chat',
         40000 + r % 10000, 1500 + r % 1000, 512, 30720, 9000 + r % 5000, 600 + r % 200, 4, 100,
         CASE WHEN r % 20 = 0 THEN 'upstream timed out after 30 s' END,
         CASE WHEN r % 20 = 0 THEN 'timeout' END,
         md5(r::text), ARRAY['agent', 'research', 'prod-eu'], 'production', 'web@2026.11.3',
         $3::jsonb, now() - make_interval(secs => $2::int - r)
       FROM generate_series(1, $2::int) r`,
      [projectId, runs, detailJson]
    )
  })
}
