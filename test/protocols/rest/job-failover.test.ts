/**
 * Two gateways on one PostgreSQL, as real processes (the embedded store is
 * one process only: its data directory is locked), sharing the `webhooks`
 * job. While the gateway running a pass lives, the other does not take the
 * job, though the pass runs longer than the lease; killed with kill -9
 * mid-pass, it leaves the job to the other within the lease (30 s,
 * docs/decisions.md "Jobs and retention") and one poll interval. Real time:
 * a killed process cannot be put on a test clock. The runner's lease on the
 * test clock, on both stores: test/unit/platform/job-leases.test.ts.
 */
import pg from "pg"
import { describe, expect, it } from "vitest"
import { ADMIN_TOKEN, call, freshPostgresDatabase } from "../../support/layers.js"
import { type RunningGateway, spawnGateway } from "../../support/process.js"
import { startReceiver } from "../../support/webhook-receiver.js"

/** The bound the decision states, the poll interval the gateways run with, and room for a loaded 2-core machine. */
const LEASE_MS = 30_000
const POLL_SECONDS = 1
const SLACK_MS = 3_000
/**
 * 20 subscriptions x 15 threads: 300 deliveries to a receiver that never answers (5 s per attempt, 32 at once,
 * claims of 128): a pass of about 50 s.
 */
const HOOKS = 20
const THREADS = 15

const sleep = (ms: number) => new Promise<void>((done) => setTimeout(done, ms))
const until = async (condition: () => boolean, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!condition() && Date.now() < deadline) await sleep(100)
  return condition()
}

describe.skipIf(!process.env.TEST_DATABASE_URL)("two gateways on PostgreSQL", () => {
  it("a long pass stays with its live gateway; killed mid-pass (kill -9), the other takes the job within the lease", {
    timeout: 240_000
  }, async () => {
    const receiver = await startReceiver()
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    const store = new pg.Client({ connectionString: db.url })
    const gateways: Array<RunningGateway> = []
    const env = {
      DATABASE_URL: db.url,
      ADMIN_TOKEN,
      WEBHOOK_ALLOW_PRIVATE: "true",
      BOOTSTRAP_DEFAULT_PROJECT: "false",
      JOBS_POLL_SECONDS: String(POLL_SECONDS)
    }
    try {
      const first = await spawnGateway(env)
      gateways.push(first)
      await store.connect()
      const holder = async () =>
        (await store.query<{ leased_by: string | null }>("SELECT leased_by FROM jobs WHERE name = 'webhooks'")).rows[0]
          ?.leased_by ?? null

      const headers = { authorization: `Bearer ${ADMIN_TOKEN}` }
      const project = await call(first.url, "POST", "/v1/admin/projects", { body: { name: "failover" }, headers })
      expect(project.status, project.text).toBe(201)
      const projectId = project.body.project_id as string
      for (let i = 0; i < HOOKS; i++) {
        receiver.answer(`/slow-${i}`, "hang")
        const hook = await call(first.url, "POST", `/v1/admin/projects/${projectId}/webhooks`, {
          body: { url: receiver.url(`/slow-${i}`), events: ["thread.created"] },
          headers
        })
        expect(hook.status, hook.text).toBe(201)
      }
      for (let i = 0; i < THREADS; i++) {
        const thread = await call(first.url, "POST", "/v1/threads", {
          body: { last_message_at: new Date().toISOString() },
          headers: { authorization: `Bearer ${project.body.api_key}`, "svc-user-id": "u1", "svc-workspace-id": "w1" }
        })
        expect(thread.status, thread.text).toBe(201)
      }

      // The first gateway's pass has begun once the receiver hears from it: the pass runs about 50 s.
      expect(await until(() => receiver.received.length > 0, 30_000), "no delivery attempt").toBe(true)
      const passStarted = Date.now()
      const firstHolder = await holder()
      expect(firstHolder).not.toBeNull()

      const second = await spawnGateway(env)
      gateways.push(second)
      // The second must be polling well before the first's lease would run out without renewal.
      expect(Date.now() - passStarted).toBeLessThan(LEASE_MS - 5 * POLL_SECONDS * 1000)

      // Alive: past the lease (and some polls of the second), the job stays the first's.
      const seen = new Set<string | null>()
      while (Date.now() < passStarted + LEASE_MS + 8_000) {
        seen.add(await holder())
        await sleep(250)
      }
      expect([...seen]).toEqual([firstHolder])

      // Killed mid-pass: nothing renews its lease any more.
      const exited = new Promise((done) => first.child.once("exit", done))
      first.child.kill("SIGKILL")
      await exited
      const killedAt = Date.now()
      const heardBefore = receiver.received.length
      let takenAt: number | undefined
      while (takenAt === undefined && Date.now() < killedAt + LEASE_MS + 30_000) {
        const now = await holder()
        if (now !== null && now !== firstHolder) takenAt = Date.now()
        else await sleep(250)
      }
      const takeoverMs = takenAt === undefined ? undefined : takenAt - killedAt
      console.log(`job failover: the second gateway took the webhooks job ${takeoverMs ?? "(never)"} ms after kill -9`)
      expect(takeoverMs, "the second gateway never took the job").toBeDefined()
      expect(takeoverMs).toBeLessThanOrEqual(LEASE_MS + POLL_SECONDS * 1000 + SLACK_MS)
      // And it sends: the receiver hears from it.
      expect(await until(() => receiver.received.length > heardBefore, 15_000), "no attempt after the takeover").toBe(
        true
      )
    } finally {
      for (const gateway of gateways) if (gateway.child.exitCode === null) gateway.child.kill("SIGKILL")
      await store.end().catch(() => {})
      await receiver.close()
      await db.drop()
    }
  })
})
