/**
 * `npm run bench:mcp-search`: on PostgreSQL, a project of 1,000 threads and
 * 100,000 messages (svc/v0 text from a 2,000-word vocabulary, 1 message in
 * 20 with Chinese text; indexed as the gateway indexes them), then, each
 * beside its baseline in the same run, alternating:
 *
 * 1. MCP `tools/call` of `list_threads` (limit 20) through POST /v1/mcp
 *    against the REST route with the same query (GET /v1/projects/threads?limit=20),
 *    both on the gateway, requests per second and the ratio;
 * 2. search (GET /v1/projects/search?q=...) against the bare SQL: the search
 *    statement of src/search/SearchRepo.ts run straight through `pg` at the
 *    same concurrency, for a common word, a rare word, a phrase and a
 *    Chinese word.
 *
 * Env: BENCH_MCP_DURATION (s, 8), BENCH_MCP_ROUNDS (2), BENCH_MCP_CONNECTIONS (8), BENCH_MCP_WARMUP
 * (s, 3: the MCP call and its REST read each, unmeasured, before the first round), BENCH_PG_URL,
 * BENCH_PROFILE (1: --cpu-prof the gateway), BENCH_MCP_ONLY (1: the MCP call and its baseline only).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { indexText, parseQuery } from "../src/platform/text/SearchText.js"
import { createDatabase } from "./lib/db.js"
import { runAutocannon } from "./lib/load.js"
import { killAllNow } from "./lib/proc.js"
import { adminToken, startGateway } from "./lib/servers.js"
import { log, RESULTS, runId, settings, workDir } from "./lib/settings.js"
import { median } from "./lib/stats.js"

const intEnv = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const DURATION_S = intEnv("BENCH_MCP_DURATION", 8)
const ROUNDS = intEnv("BENCH_MCP_ROUNDS", 2)
const WARMUP_S = intEnv("BENCH_MCP_WARMUP", 3)
const CONNECTIONS = intEnv("BENCH_MCP_CONNECTIONS", 8)
const THREADS = 1_000
const MESSAGES_PER_THREAD = 100

/** A deterministic vocabulary and word stream (the same data every run). */
let seed = 20261124
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648
  return seed / 2_147_483_648
}
const SYLLABLES = ["ka", "lo", "mi", "ren", "to", "sa", "vel", "nor", "pi", "dun", "qua", "zet", "ol", "bri", "fa"]
const VOCABULARY = Array.from({ length: 2_000 }, (_, i) => {
  let word = ""
  for (let n = i + 1; n > 0; n = Math.floor(n / SYLLABLES.length)) word += SYLLABLES[n % SYLLABLES.length]
  return word
})
// Zipf-like: low ranks are common.
const wordAt = () => VOCABULARY[Math.floor(VOCABULARY.length * random() ** 3)] ?? "ka"
const sentence = (words: number) => Array.from({ length: words }, wordAt).join(" ")
const CHINESE = ["我们明天去北京旅行", "这家酒店的早餐很好", "请帮我预订火车票", "上海的天气怎么样"]

const QUERIES = {
  common: VOCABULARY[0] ?? "ka",
  rare: VOCABULARY[1_500] ?? "ka",
  phrase: `"${VOCABULARY[0]} ${VOCABULARY[1]}"`,
  chinese: "北京"
} as const

const seedProject = async (url: string, projectId: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const now = Date.now()
    const threads = Array.from({ length: THREADS }, (_, t) => {
      const title = t % 10 === 0 ? sentence(4) : null
      return {
        id: `thread_bench${String(t).padStart(6, "0")}`,
        workspace_id: `ws-${t % 50}`,
        user_id: `user-${t % 200}`,
        title,
        tsv: title === null ? null : indexText(title),
        last_message_at: new Date(now - t * 60_000).toISOString()
      }
    })
    await client.query(
      `INSERT INTO threads (project_id, id, workspace_id, user_id, title, last_message_at, search_tsv)
       SELECT $1, t.id, t.workspace_id, t.user_id, t.title, t.last_message_at,
         CASE WHEN t.tsv IS NULL THEN NULL ELSE setweight(to_tsvector('simple', t.tsv), 'A') END
       FROM jsonb_to_recordset($2::jsonb) AS t(id text, workspace_id text, user_id text, title text, tsv text,
         last_message_at timestamptz)`,
      [projectId, JSON.stringify(threads)]
    )
    for (let t = 0; t < THREADS; t += 50) {
      const rows = []
      for (let u = t; u < t + 50; u++) {
        for (let m = 0; m < MESSAGES_PER_THREAD; m++) {
          const text = (u * MESSAGES_PER_THREAD + m) % 20 === 0 ? `${CHINESE[m % 4]} ${sentence(5)}` : sentence(25)
          rows.push({
            thread_id: `thread_bench${String(u).padStart(6, "0")}`,
            id: `msg_bench${String(u).padStart(6, "0")}${String(m).padStart(4, "0")}`,
            user_id: `user-${u % 200}`,
            height: m,
            content: { role: m % 2 === 0 ? "user" : "assistant", content: [{ type: "text", text }] },
            tsv: indexText(text)
          })
        }
      }
      await client.query(
        `INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content, search_tsv)
         SELECT $1, m.thread_id, m.id, m.user_id, m.height, 'svc/v0', m.content, to_tsvector('simple', m.tsv)
         FROM jsonb_to_recordset($2::jsonb) AS m(thread_id text, id text, user_id text, height integer, content jsonb,
           tsv text)`,
        [projectId, JSON.stringify(rows)]
      )
    }
    await client.query("ANALYZE threads; ANALYZE messages")
  } finally {
    await client.end()
  }
}

/** The statement of src/search/SearchRepo.ts for a project-wide search, without filters. */
const SEARCH_SQL = `
  WITH q AS (
    SELECT query, websearch_to_tsquery('simple', $3) AS rank_query
    FROM (SELECT websearch_to_tsquery('simple', $2) AS query) w WHERE numnode(query) > 0
  ), titles AS (
    SELECT t.id, ts_rank(t.search_tsv, q.rank_query) AS rank FROM threads t, q
    WHERE t.project_id = $1 AND t.search_tsv @@ q.query
  ), candidates AS (
    SELECT m.thread_id, m.id, m.search_tsv
    FROM messages m JOIN threads t ON t.project_id = m.project_id AND t.id = m.thread_id, q
    WHERE m.project_id = $1 AND m.search_tsv @@ q.query AND t.project_id = $1
    LIMIT 10000
  ), messages_hit AS (
    SELECT DISTINCT ON (c.thread_id) c.thread_id, c.id, ts_rank(c.search_tsv, q.rank_query) AS rank
    FROM candidates c, q
    ORDER BY c.thread_id, rank DESC, c.id DESC
  ), ranked AS (
    SELECT COALESCE(ti.id, mh.thread_id) AS id, COALESCE(ti.rank, 0) + COALESCE(mh.rank, 0) AS score, mh.id AS message_id
    FROM titles ti FULL JOIN messages_hit mh ON mh.thread_id = ti.id
    ORDER BY score DESC, id DESC LIMIT 20
  )
  SELECT (SELECT row_to_json(j)::text FROM (SELECT id, project_id, workspace_id, created_at, updated_at, title,
      last_message_at, is_archived, external_id, metadata FROM threads WHERE project_id = $1 AND id = r.id) j) AS thread,
    t.title, r.score::float8 AS score, r.message_id, m.format, m.content::text AS content
  FROM ranked r JOIN threads t ON t.project_id = $1 AND t.id = r.id
  LEFT JOIN messages m ON m.project_id = $1 AND m.thread_id = r.id AND m.id = r.message_id
  ORDER BY r.score DESC, r.id DESC`

/** The bare SQL at CONNECTIONS concurrent queries for `durationS`: queries per second. */
const bareSql = async (url: string, projectId: string, query: ReturnType<typeof parseQuery>, durationS: number) => {
  const pool = new pg.Pool({ connectionString: url, max: CONNECTIONS })
  let done = 0
  const until = Date.now() + durationS * 1000
  const started = Date.now()
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (Date.now() < until) {
        await pool.query(SEARCH_SQL, [projectId, query.tsquery, query.rankquery])
        done += 1
      }
    })
  )
  await pool.end()
  return Math.round(done / ((Date.now() - started) / 1000))
}

const main = async () => {
  mkdirSync(workDir, { recursive: true })
  const db = await createDatabase(settings.pgUrl)
  log(`database ${db.name}`)
  try {
    const gateway = await startGateway(db.url, { label: "mcp-search", logLevel: "default", profile: settings.profile })
    const created = await fetch(`${gateway.baseUrl}/v1/admin/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench-mcp-search" })
    })
    const project = (await created.json()) as { project_id: string; api_key: string }
    const seeding = Date.now()
    await seedProject(db.url, project.project_id)
    log(`seeded ${THREADS} threads, ${THREADS * MESSAGES_PER_THREAD} messages in ${Date.now() - seeding} ms`)
    const auth = { authorization: `Bearer ${project.api_key}` }

    const mcpCall = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "list_threads", arguments: { limit: 20 } }
    })
    const probe = await fetch(`${gateway.baseUrl}/v1/mcp`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: mcpCall
    })
    const probed = (await probe.json()) as { result?: { structuredContent?: { threads?: Array<unknown> } } }
    if (probed.result?.structuredContent?.threads?.length !== 20) throw new Error("tools/call list_threads failed")

    const http = async (
      url: string,
      method: "GET" | "POST",
      headers: Record<string, string>,
      body?: string,
      durationS = DURATION_S
    ) =>
      runAutocannon(
        { url, method, headers, ...(body === undefined ? {} : { body }) },
        { connections: CONNECTIONS, durationS, serverPid: gateway.child.pid }
      )
    const mcpHeaders = { ...auth, "content-type": "application/json", accept: "application/json, text/event-stream" }
    // The first seconds of either are the JIT's: without this the first round's MCP figure was half the next one's.
    if (WARMUP_S > 0) {
      await http(`${gateway.baseUrl}/v1/mcp`, "POST", mcpHeaders, mcpCall, WARMUP_S)
      await http(`${gateway.baseUrl}/v1/projects/threads?limit=20`, "GET", auth, undefined, WARMUP_S)
    }
    const results: Record<string, { gateway: Array<number>; baseline: Array<number> }> = {}
    const record = (name: string, target: "gateway" | "baseline", rps: number) => {
      const entry = results[name] ?? { gateway: [], baseline: [] }
      entry[target].push(rps)
      results[name] = entry
      log(`${name} ${target}: ${rps}/s`)
    }
    for (let round = 1; round <= ROUNDS; round++) {
      const mcp = await http(`${gateway.baseUrl}/v1/mcp`, "POST", mcpHeaders, mcpCall)
      if (mcp.non2xx > 0) throw new Error(`MCP answered ${mcp.non2xx} non-2xx`)
      record("list_threads", "gateway", mcp.rps)
      const restList = await http(`${gateway.baseUrl}/v1/projects/threads?limit=20`, "GET", auth)
      record("list_threads", "baseline", restList.rps)
      for (const [name, q] of process.env.BENCH_MCP_ONLY === "1" ? [] : Object.entries(QUERIES)) {
        const search = await http(`${gateway.baseUrl}/v1/projects/search?q=${encodeURIComponent(q)}`, "GET", auth)
        if (search.non2xx > 0) throw new Error(`search answered ${search.non2xx} non-2xx`)
        record(`search ${name}`, "gateway", search.rps)
        record(`search ${name}`, "baseline", await bareSql(db.url, project.project_id, parseQuery(q), DURATION_S))
      }
    }
    const summary = Object.entries(results).map(([name, figures]) => {
      const gatewayRps = median(figures.gateway)
      const baselineRps = median(figures.baseline)
      return {
        name,
        gateway: gatewayRps,
        baseline: baselineRps,
        ratio: Math.round((gatewayRps / baselineRps) * 100) / 100
      }
    })
    process.stdout.write(
      `${summary.map((s) => `${s.name.padEnd(16)} gateway ${s.gateway}/s  baseline ${s.baseline}/s  ratio ${s.ratio}`).join("\n")}\n`
    )
    mkdirSync(RESULTS, { recursive: true })
    const file = join(RESULTS, `mcp-search-${runId}.json`)
    writeFileSync(
      file,
      JSON.stringify({ runId, connections: CONNECTIONS, durationS: DURATION_S, summary, results }, null, 1)
    )
    log(`results in ${file}`)
    await gateway.child.stop()
    const profile = gateway.collectProfile()
    if (profile !== undefined) log(`gateway CPU profile: ${profile} (npx tsx bench/profile-summary.ts ${profile})`)
  } finally {
    killAllNow()
    await db.drop()
    rmSync(workDir, { recursive: true, force: true })
  }
}

await main()
