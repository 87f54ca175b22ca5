/**
 * What MCP calls cost the gateway in memory, measured on a gateway process
 * of its own (its resident set sampled from /proc, Linux only): a thread of
 * 200 messages of 60 KB (12 MB a full page), read by 20 concurrent
 * get_thread requests and by a 15 KB batch of 100 get_thread calls. Before
 * the bounds, the batch ran its calls at once and each call read its whole
 * page before cutting it to 256 KB: the gateway grew by 400 to 650 MB for
 * the batch, and by 300 MB for the 20 requests on PostgreSQL (issue 22).
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { call, freshPostgresDatabase, NOW, stores } from "../../support/layers.js"
import { spawnGateway } from "../../support/process.js"

const ADMIN = "mcp-memory-admin-token-0123456789abcdef"
/** What either load may add to the gateway's resident set, at most (MB). */
const GROWTH_MAX_MB = 100

const residentMb = (pid: number) => {
  const kb = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
  return Number(kb) / 1024
}

/** How far above its resident set before `load` the process's went while `load` ran (sampled every 5 ms). */
const growthDuring = async (pid: number, load: () => Promise<void>) => {
  const before = residentMb(pid)
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, residentMb(pid))
  }, 5)
  try {
    await load()
  } finally {
    clearInterval(sampler)
  }
  return Math.max(peak, residentMb(pid)) - before
}

describe.each(stores)("MCP memory under load ($name)", (storeUnderTest) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-mcp-memory-"))
  let drop = async () => {}
  afterAll(async () => {
    await drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })

  it.skipIf(process.platform !== "linux")(
    "20 concurrent get_thread requests and a batch of 100 get_thread calls over 12 MB pages stay within 100 MB",
    async () => {
      const env: Record<string, string> = { ADMIN_TOKEN: ADMIN, BOOTSTRAP_DEFAULT_PROJECT: "false" }
      if (storeUnderTest.name === "postgres" && process.env.TEST_DATABASE_URL !== undefined) {
        const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL)
        drop = db.drop
        env.DATABASE_URL = db.url
      } else env.DATA_DIR = dataDir
      const gateway = await spawnGateway(env)
      try {
        const pid = gateway.child.pid ?? 0
        const project = await call(gateway.url, "POST", "/v1/admin/projects", {
          body: { name: "mcp-memory" },
          headers: { authorization: `Bearer ${ADMIN}` }
        })
        expect(project.status, project.text).toBe(201)
        const headers = {
          authorization: `Bearer ${project.body.api_key}`,
          "svc-user-id": "u1",
          "svc-workspace-id": "w1"
        }
        const thread = await call(gateway.url, "POST", "/v1/threads", { body: { last_message_at: NOW }, headers })
        expect(thread.status, thread.text).toBe(201)
        const threadId: string = thread.body.thread_id
        // A format the gateway does not index: the fixture is the page's size, not its search text.
        const text = "lorem ipsum dolor sit amet ".repeat(2_200)
        let parent: string | null = null
        for (let i = 0; i < 200; i++) {
          const message = await call(gateway.url, "POST", `/v1/threads/${threadId}/messages`, {
            body: { parent_id: parent, format: "test/v1", content: { role: "user", text: `${i} ${text}` } },
            headers
          })
          expect(message.status, message.text).toBe(201)
          parent = message.body.message_id
        }
        const getThread = (id: number) => ({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: { name: "get_thread", arguments: { thread_id: threadId, limit: 200 } }
        })
        const post = async (payload: unknown) => {
          const reply = await fetch(`${gateway.url}/v1/mcp`, {
            method: "POST",
            headers: {
              ...headers,
              "content-type": "application/json",
              accept: "application/json, text/event-stream"
            },
            body: JSON.stringify(payload)
          })
          expect(reply.status).toBe(200)
          return reply.json()
        }

        // The concurrent requests first: a process keeps what it has grown to, and they grew less before.
        const concurrentGrowth = await growthDuring(pid, async () => {
          const answers = await Promise.all(Array.from({ length: 20 }, (_, id) => post(getThread(id))))
          for (const answer of answers) expect(answer.result.structuredContent.next_after).not.toBeNull()
        })
        const batchGrowth = await growthDuring(pid, async () => {
          const answers = await post(Array.from({ length: 100 }, (_, id) => getThread(id)))
          expect(answers.length).toBe(100)
          expect(answers[0].result.structuredContent.messages.length).toBeGreaterThan(0)
        })
        expect.soft(concurrentGrowth, `concurrent: +${concurrentGrowth.toFixed(0)} MB`).toBeLessThan(GROWTH_MAX_MB)
        expect.soft(batchGrowth, `batch: +${batchGrowth.toFixed(0)} MB`).toBeLessThan(GROWTH_MAX_MB)
      } finally {
        await gateway.stop()
      }
    },
    300_000
  )
})
