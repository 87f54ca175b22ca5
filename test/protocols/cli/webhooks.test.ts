/**
 * `svc webhook create | list | delete | deliveries | redeliver` on every
 * store, in this process (test/support/cli-harness.ts) on the store of a running
 * gateway: a subscription made by the CLI gets the gateway's event,
 * delivered by `svc jobs run --job webhooks` to a local receiver, signed.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { cliFor, type InProcessCli } from "../../support/cli-harness.js"
import { newThread } from "../../support/helpers.js"
import { asUser, type StartedGateway, startGateway, stores } from "../../support/layers.js"
import { type Receiver, startReceiver, verifySignature } from "../../support/webhook-receiver.js"

describe.each(stores)("svc webhook commands on the $name store", (given) => {
  let gateway: StartedGateway
  let svc: InProcessCli
  let drop = async () => {}
  let receiver: Receiver
  let project = { project_id: "", api_key: "" }
  const json = (args: ReadonlyArray<string>, extra: Record<string, string> = {}) => svc.json(args, extra)
  const runCli = (args: ReadonlyArray<string>, extra: Record<string, string>) => svc.run(args, extra)
  const env: Record<string, string> = {}
  beforeAll(async () => {
    const made = await given.make()
    // No timer: deliveries are made when the test runs the job through the CLI.
    gateway = await startGateway(made.store, { JOBS_POLL_SECONDS: "0" })
    svc = await cliFor(gateway)
    drop = async () => {
      await gateway.close()
      await made.drop()
    }
    receiver = await startReceiver()
    project = await json(["project", "create", "--name", "hooks"])
  })
  afterAll(async () => {
    await receiver.close()
    await drop()
  })

  it("creates (secret once), refuses bad and private destinations, lists, delivers, logs, redelivers, deletes", async () => {
    const allow = { WEBHOOK_ALLOW_PRIVATE: "true" }
    const url = receiver.url("/cli")
    const created = await json(
      [
        "webhook",
        "create",
        "--project",
        project.project_id,
        "--url",
        url,
        "--event",
        "thread.created",
        "--event",
        "run.created"
      ],
      allow
    )
    expect(created).toMatchObject({ url, events: ["thread.created", "run.created"] })
    expect(created.secret).toMatch(/^whsec_/)

    const text = await runCli(["webhook", "list", "--project", project.project_id], env)
    expect(text.code).toBe(0)
    expect(text.stdout).toContain(created.id)
    expect(text.stdout).not.toContain(created.secret)
    expect((await json(["webhook", "list", "--project", project.project_id])).webhooks).toHaveLength(1)

    // Loopback without WEBHOOK_ALLOW_PRIVATE, a bad event, an unknown project.
    const refused = await runCli(
      ["webhook", "create", "--project", project.project_id, "--url", url, "--event", "run.created", "--json"],
      env
    )
    expect(refused.code).toBe(2)
    expect(JSON.parse(refused.stderr)).toMatchObject({ error: "invalid_request" })
    expect(JSON.parse(refused.stderr).message).toMatch(/private, loopback or link-local/)
    const badEvent = await runCli(
      ["webhook", "create", "--project", project.project_id, "--url", url, "--event", "run.deleted", "--json"],
      { ...env, ...allow }
    )
    expect(badEvent.code).toBe(2)
    expect(JSON.parse(badEvent.stderr).message).toContain("--event")
    const missing = await runCli(["webhook", "list", "--project", "proj_nope", "--json"], env)
    expect(missing.code).toBe(3)

    // An event through the gateway, on the same store.
    const threadId = await newThread(asUser(gateway, project.api_key, "u1", "w1"))
    const pending = await json(["webhook", "deliveries", "--project", project.project_id, "--id", created.id])
    expect(pending.deliveries).toHaveLength(1)
    expect(pending.deliveries[0]).toMatchObject({ event_type: "thread.created", status: "pending", attempts: 0 })

    const run = await json(["jobs", "run", "--job", "webhooks"], allow)
    expect(run).toMatchObject({ job: "webhooks", error: null, details: { delivered: 1 } })
    const [got] = receiver.at("/cli")
    expect(JSON.parse(got?.body ?? "{}")).toMatchObject({ type: "thread.created", data: { id: threadId } })
    expect(await verifySignature(created.secret, got ?? { path: "", headers: {}, body: "" })).toBe(true)

    const deliveryId = pending.deliveries[0].id as string
    const log = await runCli(["webhook", "deliveries", "--project", project.project_id, "--id", created.id], env)
    expect(log.stdout).toContain(`${deliveryId}\tthread.created\tdelivered\tattempts 1\tcodes 204`)
    const byStatus = (status: string) =>
      json(["webhook", "deliveries", "--project", project.project_id, "--id", created.id, "--status", status])
    expect((await byStatus("delivered")).deliveries.map((d: { id: string }) => d.id)).toEqual([deliveryId])
    expect((await byStatus("pending")).deliveries).toEqual([])

    const again = await json([
      "webhook",
      "redeliver",
      "--project",
      project.project_id,
      "--id",
      created.id,
      "--delivery",
      deliveryId
    ])
    expect(again).toMatchObject({ id: deliveryId, status: "pending" })
    expect(await json(["jobs", "run", "--job", "webhooks"], allow)).toMatchObject({ details: { delivered: 1 } })
    expect(receiver.at("/cli")).toHaveLength(2)
    const unknown = await runCli(
      [
        "webhook",
        "redeliver",
        "--project",
        project.project_id,
        "--id",
        created.id,
        "--delivery",
        "msg_nope-1",
        "--json"
      ],
      env
    )
    expect(unknown.code).toBe(3)

    expect(await json(["webhook", "delete", "--project", project.project_id, "--id", created.id])).toEqual({
      deleted: created.id
    })
    expect((await json(["webhook", "list", "--project", project.project_id])).webhooks).toEqual([])
    expect((await runCli(["webhook", "delete", "--project", project.project_id, "--id", created.id], env)).code).toBe(3)
  })
})
