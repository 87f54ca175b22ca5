/**
 * An append PostgreSQL ends to break a deadlock (40P01) is tried again, whole
 * (src/platform/db/SqlErrors.ts retryDeadlock, docs/decisions.md "Deadlocks
 * between appends"): the client gets 201 and the message is stored once,
 * alone or in its transaction with its webhook deliveries. The deadlock is
 * made by a trigger that raises 40P01 on the first tries of a marked message,
 * on both stores.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { admin, asUser, createProject, NOW, stores, useGateway } from "../../support/layers.js"

const cases = stores.flatMap((store) => [
  { store, name: store.name, webhook: false },
  { store, name: `${store.name}, with a message.created subscription`, webhook: true }
])

describe.each(cases)("an append ended by a deadlock ($name)", ({ store: storeUnderTest, webhook }) => {
  // No job polls: the deliveries stay pending, to be counted.
  const gateway = useGateway(storeUnderTest, { WEBHOOK_ALLOW_PRIVATE: "true", JOBS_POLL_SECONDS: "0" })
  let user: ReturnType<typeof asUser>

  beforeAll(async () => {
    const { api_key, project_id } = await createProject(gateway.current, "deadlock")
    user = asUser(gateway.current, api_key, "u1", "w1")
    if (webhook) {
      // With a subscription, the append and its deliveries are one transaction: it is tried again whole.
      const made = await admin(gateway.current)("POST", `/projects/${project_id}/webhooks`, {
        url: "http://127.0.0.1:9/hook",
        events: ["message.created"]
      })
      expect(made.status, made.text).toBe(201)
    }
    // A sequence counts the tries: unlike a row, nextval is not rolled back with the failed statement.
    await gateway.current.sql("CREATE SEQUENCE deadlock_tries")
    // The first `limit` tries of a message whose text holds its marker fail as a deadlock's victim does.
    await gateway.current.sql(`CREATE FUNCTION deadlock_first_tries() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE limit_tries integer := (regexp_match(NEW.content::text, 'deadlock-(\\d)'))[1]::integer;
      BEGIN
        IF limit_tries IS NOT NULL THEN
          IF nextval('deadlock_tries') <= limit_tries THEN
            RAISE EXCEPTION 'deadlock detected' USING ERRCODE = '40P01';
          END IF;
        END IF;
        RETURN NEW;
      END $$`)
    await gateway.current.sql(
      "CREATE TRIGGER deadlock_first_tries BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION deadlock_first_tries()"
    )
  })

  const append = async (text: string) => {
    await gateway.current.sql("SELECT setval('deadlock_tries', 1, false)")
    const thread = await user("POST", "/threads", { body: { last_message_at: NOW } })
    expect(thread.status, thread.text).toBe(201)
    const threadId = thread.body.thread_id as string
    const reply = await user("POST", `/threads/${threadId}/messages`, {
      body: { format: "svc/v0", content: { role: "user", content: [{ type: "text", text }] } }
    })
    const stored = await gateway.current.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM messages WHERE thread_id = $1",
      [threadId]
    )
    const tries = await gateway.current.sql<{ n: number }>(
      "SELECT CASE WHEN is_called THEN last_value ELSE 0 END::int AS n FROM deadlock_tries"
    )
    const deliveries = await gateway.current.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE thread_id = $1",
      [threadId]
    )
    return { reply, stored: Number(stored[0]?.n), tries: Number(tries[0]?.n), deliveries: Number(deliveries[0]?.n) }
  }

  it("stores the message once after a deadlock, answering 201", async () => {
    const once = await append("ends in deadlock-1")
    expect(once.reply.status, once.reply.text).toBe(201)
    expect(once.stored).toBe(1)
    expect(once.tries).toBe(2)
    expect(once.deliveries).toBe(webhook ? 1 : 0)
    const twice = await append("ends in deadlock-2")
    expect(twice.reply.status, twice.reply.text).toBe(201)
    expect(twice.stored).toBe(1)
    expect(twice.tries).toBe(3)
    expect(twice.deliveries).toBe(webhook ? 1 : 0)
  })

  it("gives up after three tries: the deadlock is not hidden for ever", async () => {
    const stuck = await append("ends in deadlock-3")
    expect(stuck.reply.status).toBe(500)
    expect(stuck.stored).toBe(0)
    expect(stuck.tries).toBe(3)
    expect(stuck.deliveries).toBe(0)
  })
})
