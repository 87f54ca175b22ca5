/**
 * `svc alert create | list | update | delete | history` on every store, in
 * this process (test/support/cli-harness.ts) on the store of a running gateway: the
 * limits (one inside, one outside), the plan's count, a private destination,
 * unknown project and rule (exit 3), refused values (exit 2), and a rule
 * made by the CLI fired by `svc jobs run --job alerts` and delivered, signed,
 * by `svc jobs run --job webhooks`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliFor, type InProcessCli } from "../../support/cli-harness.js"
import { newThread } from "../../support/helpers.js"
import { asUser, type StartedGateway, startGateway, stores } from "../../support/layers.js"
import { type Receiver, startReceiver, verifySignature } from "../../support/webhook-receiver.js"

describe.each(stores)("svc alert commands on the $name store", (storeUnderTest) => {
  let gateway: StartedGateway
  let svc: InProcessCli
  let receiver: Receiver
  let drop = async () => {}
  let project = { project_id: "", api_key: "" }
  const failure = async (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
    const result = await svc.run([...args, "--json"], env)
    expect(result.code, result.stdout).not.toBe(0)
    expect(result.stdout).toBe("")
    return { code: result.code, body: JSON.parse(result.stderr) }
  }
  beforeAll(async () => {
    const made = await storeUnderTest.make()
    gateway = await startGateway(made.store, { JOBS_POLL_SECONDS: "0", WEBHOOK_ALLOW_PRIVATE: "true" })
    svc = await cliFor(gateway)
    receiver = await startReceiver()
    drop = async () => {
      await receiver.close()
      await svc.close()
      await gateway.close()
      await made.drop()
    }
    project = await svc.json(["project", "create", "--name", "alerts"])
  })
  afterAll(() => drop())

  const rule = (overrides: Record<string, string> = {}) => {
    const options: Record<string, string> = {
      "--project": project.project_id,
      "--name": "errors",
      "--metric": "run_errors",
      "--comparison": "gte",
      "--threshold": "1",
      "--window-minutes": "60",
      "--cooldown-minutes": "60",
      "--webhook-url": receiver.url("/cli"),
      ...overrides
    }
    return Object.entries(options).flat()
  }

  it("creates, lists, updates, fires, shows the history and deletes, within the limits", async () => {
    const created = await svc.json([
      "alert",
      "create",
      ...rule({ "--window-minutes": "5", "--cooldown-minutes": "10080", "--model-id": "m1" })
    ])
    expect(created).toMatchObject({
      name: "errors",
      metric: "run_errors",
      comparison: "gte",
      threshold: 1,
      window_minutes: 5,
      cooldown_minutes: 10_080,
      filters: { model_id: "m1" },
      webhook_url: receiver.url("/cli")
    })
    expect(created.rule_id).toMatch(/^alr_/)
    expect(created.secret).toMatch(/^whsec_/)

    // Just outside: 400, exit 2, naming the option.
    const window = await failure(["alert", "create", ...rule({ "--window-minutes": "4" })])
    expect(window).toMatchObject({ code: 2, body: { error: "invalid_request" } })
    expect(window.body.message).toContain("--window-minutes")
    const cooldown = await failure(["alert", "create", ...rule({ "--cooldown-minutes": "10081" })])
    expect(cooldown.code).toBe(2)
    expect(cooldown.body.message).toContain("--cooldown-minutes: cooldown_minutes is a whole number from 5 to 10080")
    const metric = await failure(["alert", "create", ...rule({ "--metric": "latency" })])
    expect(metric.code).toBe(2)
    expect(metric.body.message).toMatch(/--metric: metric must be one of/)
    const filtered = await failure(["alert", "create", ...rule({ "--metric": "active_users", "--tag": "beta" })])
    expect(filtered.code).toBe(2)
    expect(filtered.body.message).toMatch(/run metrics only/)
    const loopback = await failure(["alert", "create", ...rule()], { WEBHOOK_ALLOW_PRIVATE: "false" })
    expect(loopback.code).toBe(2)
    expect(loopback.body.message).toMatch(/private, loopback or link-local/)
    // The hobby plan's one rule is taken.
    expect(await failure(["alert", "create", ...rule()])).toMatchObject({ code: 1, body: { error: "conflict" } })
    expect((await failure(["alert", "list", "--project", "proj_nope"])).code).toBe(3)

    const listed = await svc.json(["alert", "list", "--project", project.project_id])
    expect(listed.alert_rules).toEqual([expect.objectContaining({ rule_id: created.rule_id, last_fired_at: null })])
    expect(JSON.stringify(listed)).not.toContain(created.secret)
    const text = await svc.run(["alert", "list", "--project", project.project_id])
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(`${created.rule_id}\terrors\trun_errors gte 1 over 5 min\tcooldown 10080 min`)
    expect((await svc.json(["project", "settings", "--project", project.project_id])).alert_rules).toBe(1)

    // Update: any run of the last hour fires it (the model filter dropped).
    const id = ["--id", created.rule_id]
    const updated = await svc.json([
      "alert",
      "update",
      ...id,
      ...rule({ "--metric": "runs", "--window-minutes": "60" })
    ])
    expect(updated).toMatchObject({ rule_id: created.rule_id, metric: "runs", window_minutes: 60, filters: {} })
    expect(updated).not.toHaveProperty("secret")
    expect((await failure(["alert", "update", "--id", "alr_nope", ...rule()])).code).toBe(3)
    expect((await failure(["alert", "update", ...id, ...rule({ "--window-minutes": "1441" })])).code).toBe(2)

    const client = asUser(gateway, project.api_key, "u1", "w1")
    const run = await client("POST", "/runs", { body: { thread_id: await newThread(client), status: "completed" } })
    expect(run.status, run.text).toBe(201)
    expect(await svc.json(["jobs", "run", "--job", "alerts"])).toMatchObject({ job: "alerts", error: null })
    expect(await svc.json(["jobs", "run", "--job", "webhooks"])).toMatchObject({ details: { delivered: 1 } })
    const [got] = receiver.at("/cli")
    expect(receiver.at("/cli")).toHaveLength(1)
    if (got === undefined) throw new Error("no delivery")
    expect(await verifySignature(created.secret, got)).toBe(true)
    expect(JSON.parse(got.body)).toMatchObject({ type: "alert.fired", data: { rule_id: created.rule_id, value: 1 } })

    const history = await svc.json(["alert", "history", "--project", project.project_id, ...id])
    expect(history.history).toEqual([
      expect.objectContaining({ value: 1, threshold: 1, delivery: expect.objectContaining({ status: "delivered" }) })
    ])
    const historyText = await svc.run(["alert", "history", "--project", project.project_id, ...id])
    expect(historyText.stdout).toContain("runs = 1 (gte 1, 60 min)\tdelivery delivered, attempts 1")
    expect((await failure(["alert", "history", "--project", project.project_id, "--id", "alr_nope"])).code).toBe(3)

    expect(await svc.json(["alert", "delete", "--project", project.project_id, ...id])).toEqual({
      deleted: created.rule_id
    })
    expect((await svc.json(["alert", "list", "--project", project.project_id])).alert_rules).toEqual([])
    expect((await failure(["alert", "delete", "--project", project.project_id, ...id])).code).toBe(3)
  })
})
