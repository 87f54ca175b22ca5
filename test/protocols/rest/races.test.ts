import { spawn } from "node:child_process"
import * as path from "node:path"
import { setTimeout as sleep } from "node:timers/promises"
import * as Redacted from "effect/Redacted"
import { beforeAll, describe, expect, it } from "vitest"
import { listMessages, newMessage, newThread } from "../../support/helpers.js"
import {
  asUser,
  createProject,
  type Gateway,
  type Reply,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"
import { root, watchOutput } from "../../support/process.js"
import { freePort } from "../../support/tcp-proxy.js"

/**
 * Appends racing on one thread (decisions.md: message order under concurrent appends): WRITERS clients at once,
 * each sending its next append as soon as the last is answered. An append that loses the race for the thread's
 * lock must still be stored, never answered 500.
 */
const WRITERS = 64

/** Every message id of the thread, in the list's order (by id), page after page. */
const allIds = async (client: UserClient, threadId: string): Promise<Array<string>> => {
  const ids: Array<string> = []
  for (;;) {
    const after = ids.length === 0 ? "" : `&after=${ids[ids.length - 1]}`
    const page = (await listMessages(client, threadId, `?limit=200${after}`)).map((message) => message.id as string)
    if (page.length === 0) return ids
    ids.push(...page)
  }
}

/**
 * The compiled gateway as a process, as `npm start` runs it but logging warnings only (a line per request
 * slows it enough that fewer appends meet at the lock), once it answers /readyz. `clockAheadMs`: its clock
 * (Date.now, which its ids are made from) runs that far ahead, as another host's may.
 */
const quietGateway = async (env: Record<string, string>, clockAheadMs = 0) => {
  const url = `http://127.0.0.1:${await freePort()}`
  const skew = `data:text/javascript,const now = Date.now; Date.now = () => now() + ${clockAheadMs}`
  const child = spawn(
    process.execPath,
    [...(clockAheadMs === 0 ? [] : ["--import", skew]), path.join(root, "bin", "gateway.mjs")],
    {
      cwd: root,
      env: { ...process.env, HOST: "127.0.0.1", PORT: new URL(url).port, LOG_LEVEL: "Warn", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    }
  )
  const exited = new Promise<number | null>((done) => child.once("exit", done))
  const { output } = watchOutput(child)
  const deadline = Date.now() + 60_000
  while (
    !(await fetch(`${url}/readyz`).then(
      (reply) => reply.ok,
      () => false
    ))
  ) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`no start:\n${output()}`)
    }
    await sleep(100)
  }
  return {
    url,
    stop: () => {
      child.kill("SIGTERM")
      return exited
    }
  }
}

/**
 * WRITERS clients (taking `clients` in turn) append `each` messages each to a new thread while a reader lists
 * it, then: every append answered 201 with an id of its own, and the thread's list (by id) is the order the
 * messages committed in. That order is observed by a trigger drawing a sequence as each message row is
 * inserted: an append inserts under its thread's row lock and keeps the lock until it commits, so within one
 * thread the insert order is the commit order. The reader checks the same from outside: each list it got is
 * what had committed when it was read, so with ids in commit order it is the start of the final list.
 */
const appendRace = async (gateway: Gateway, clients: ReadonlyArray<UserClient>, each: number) => {
  await gateway.sql(
    "CREATE TABLE IF NOT EXISTS test_insert_order (seq bigserial PRIMARY KEY, message_id text NOT NULL)"
  )
  await gateway.sql(`CREATE OR REPLACE FUNCTION test_insert_order() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO test_insert_order (message_id) VALUES (NEW.id); RETURN NULL; END $$`)
  await gateway.sql(
    "CREATE TRIGGER test_insert_order AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION test_insert_order()"
  )
  try {
    const reader = clients[0] as UserClient
    const threadId = await newThread(reader)
    const pages: Array<Array<string>> = []
    let appending = true
    const reading = (async () => {
      while (appending) {
        const reply = await reader("GET", `/threads/${threadId}/messages?limit=200`)
        expect(reply.status, reply.text).toBe(200)
        pages.push((reply.body.messages as Array<{ id: string }>).map((message) => message.id))
      }
    })()
    const replies = await Promise.all(
      Array.from({ length: WRITERS }, async (_, n) => {
        const client = clients[n % clients.length] as UserClient
        const answered: Array<Reply> = []
        for (let k = 0; k < each; k++) {
          answered.push(
            await client("POST", `/threads/${threadId}/messages`, {
              body: { parent_id: null, format: "svc/v0", content: { n, k } }
            })
          )
        }
        return answered
      })
    )
      .then((answered) => answered.flat())
      .finally(() => {
        appending = false
      })
    await reading
    const refused = replies.filter((reply) => reply.status !== 201).map((reply) => `${reply.status} ${reply.text}`)
    expect(
      refused,
      `${refused.length} of ${replies.length} appends refused: ${refused.slice(0, 2).join("; ")}`
    ).toEqual([])
    const created = replies.map((reply) => reply.body.message_id as string)
    expect(new Set(created).size).toBe(WRITERS * each)
    const listed = await allIds(reader, threadId)
    expect([...listed].sort()).toEqual([...created].sort())
    const committed = await gateway.sql<{ message_id: string }>(
      `SELECT o.message_id FROM test_insert_order o JOIN messages m ON m.id = o.message_id
        WHERE m.thread_id = $1 ORDER BY o.seq`,
      [threadId]
    )
    expect(listed).toEqual(committed.map((row) => row.message_id))
    expect(pages.length).toBeGreaterThan(1)
    for (const page of pages) expect(page).toEqual(listed.slice(0, page.length))
  } finally {
    await gateway.sql("DROP TRIGGER test_insert_order ON messages")
  }
}

describe.each(stores)("concurrent writes ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let alice: UserClient
  let apiKey: string

  beforeAll(async () => {
    const project = await createProject(handle.current)
    apiKey = project.api_key
    alice = asUser(handle.current, apiKey, "alice", "ws-race")
  })

  it("appends, feedback and deletes racing on the same threads answer 201/200/204/404, never 500", async () => {
    const statuses: Array<number> = []
    for (let round = 0; round < 10; round++) {
      const threadId = await newThread(alice)
      const root = await newMessage(alice, threadId, { parent: null, content: { n: 0 } })
      const replies = await Promise.all([
        ...Array.from({ length: 6 }, (_, n) =>
          alice("POST", `/threads/${threadId}/messages`, {
            body: { parent_id: root, format: "svc/v0", content: { n } }
          })
        ),
        alice("POST", `/threads/${threadId}/messages/${root}/feedback`, { body: { type: "positive" } }),
        alice("DELETE", `/threads/${threadId}`),
        alice("POST", `/threads/${threadId}/messages/${root}/feedback`, { body: { type: "negative" } })
      ])
      statuses.push(...replies.map((reply) => reply.status))
      for (const reply of replies) {
        if (reply.status === 404) expect(reply.body.error).toBe("not_found")
      }
      expect((await alice("GET", `/threads/${threadId}`)).status).toBe(404)
    }
    expect(
      statuses.every((status) => [200, 201, 204, 404].includes(status)),
      statuses.join(",")
    ).toBe(true)
    expect(statuses.filter((status) => status === 204)).toHaveLength(10)
  })

  // On PostgreSQL the appends go to a second gateway, a process on the same database with a connection per
  // client, as several replicas would have, so that all of them wait on the thread's lock at once (the suite's
  // gateway has a pool of 5), for long enough (24 each) that some lose the race for it again and again. The
  // embedded store runs one statement at a time: 4 each.
  it(`${WRITERS} clients appending at once to one thread all answer 201, with ids in the order they committed`, async () => {
    const store = handle.store
    if (store.kind !== "postgres") return appendRace(handle.current, [alice], 4)
    const replica = await quietGateway({ DATABASE_URL: Redacted.value(store.url), DATABASE_POOL_MAX: String(WRITERS) })
    try {
      await appendRace(
        handle.current,
        [asUser({ ...handle.current, baseUrl: replica.url }, apiKey, "alice", "ws-race")],
        24
      )
    } finally {
      expect(await replica.stop()).toBe(0)
    }
  }, 120_000)

  // Two gateways on one database, one of them on a host whose clock runs 5 s ahead: the other's ids are behind
  // the thread's largest as soon as the first has appended, and must still be stored above it.
  it.skipIf(storeUnderTest.name !== "postgres")(
    `${WRITERS} clients appending at once through two gateways, one with its clock ahead, all answer 201 in commit order`,
    async () => {
      const store = handle.store
      if (store.kind !== "postgres") throw new Error("a PostgreSQL store")
      const ahead = await quietGateway(
        { DATABASE_URL: Redacted.value(store.url), DATABASE_POOL_MAX: String(WRITERS / 2) },
        5_000
      )
      try {
        await appendRace(
          handle.current,
          [alice, asUser({ ...handle.current, baseUrl: ahead.url }, apiKey, "alice", "ws-race")],
          4
        )
      } finally {
        expect(await ahead.stop()).toBe(0)
      }
    },
    120_000
  )
})
