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

/** The pgbench target: `messages`' columns, defaults, primary key and indexes; no foreign key. */
export const createPgbenchTable = (url: string): Promise<void> =>
  withClient(url, async (client) => {
    await client.query(`CREATE TABLE bench_messages (LIKE messages INCLUDING DEFAULTS INCLUDING INDEXES)`)
  })
