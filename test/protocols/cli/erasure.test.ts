/**
 * `svc user erase --project <id> --user <user_id>` and `svc user erasures --project <id>`
 * on every store, in this process (test/support/cli-harness.ts) on the store of a
 * running gateway, with attachments on the local blob store.
 */
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExitCode } from "../../../protocols/cli/Failure.js"
import { cliFor, type InProcessCli } from "../../support/cli-harness.js"
import { expectUpload, put, UPLOAD } from "../../support/files-helpers.js"
import { newMessage, newThread } from "../../support/helpers.js"
import { asUser, createProject, type Gateway, type StartedGateway, startGateway, stores } from "../../support/layers.js"

const PUBLIC_URL = "https://gateway.example.test"

const count = async (gateway: Gateway, text: string, params: ReadonlyArray<unknown>) =>
  Number((await gateway.sql<{ n: number }>(text, params))[0]?.n ?? -1)

describe.each(stores)("svc user erase on the $name store", (storeUnderTest) => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-cli-erasure-blobs-"))
  let gateway: StartedGateway
  let cli: InProcessCli
  let drop = async () => {}
  let projectId = ""
  const keys: Record<string, string> = {}
  const svc = (args: ReadonlyArray<string>) => cli.run(args)

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    gateway = await startGateway(made.store, { BLOB_DIR: blobDir, PUBLIC_URL })
    cli = await cliFor(gateway)
    drop = async () => {
      await gateway.close()
      await made.drop()
    }
    {
      const project = await createProject(gateway, "cli-erasure")
      projectId = project.project_id
      for (const user of ["alice", "bob"]) {
        const client = asUser(gateway, project.api_key, user, `ws-${user}`)
        const upload = expectUpload(await client("POST", UPLOAD, { body: { filename: `${user}.png` } }))
        const stored = await put(
          `${gateway.baseUrl}${upload.signedUrl.slice(PUBLIC_URL.length)}`,
          Buffer.from(user),
          "image/png"
        )
        expect(stored.status).toBe(200)
        keys[user] = upload.key
        const thread = await newThread(client)
        for (let i = 0; i < 3; i++) {
          await newMessage(client, thread, { content: { role: "user", attachments: i === 0 ? [upload.key] : [] } })
        }
        const run = await client("POST", "/runs", { body: { thread_id: thread, status: "completed" } })
        expect(run.status, run.text).toBe(201)
      }
    }
  })

  afterAll(async () => {
    await drop()
    rmSync(blobDir, { recursive: true, force: true })
  })

  it("erases one user: the counts as JSON and as text, the blob gone, the other user untouched, the log", async () => {
    expect(existsSync(join(blobDir, ...(keys.alice ?? "").split("/")))).toBe(true)
    const erased = await svc(["user", "erase", "--project", projectId, "--user", "alice", "--json"])
    expect(erased.code, erased.stderr).toBe(0)
    expect(erased.stderr).toBe("")
    const erasure = JSON.parse(erased.stdout)
    expect(erasure.deleted).toEqual({
      threads: 1,
      messages: 3,
      feedback: 0,
      runs: 1,
      scores: 0,
      events: 0,
      attachments: 1,
      spans: 0,
      traces: 0,
      refresh_tokens: 0,
      workspace_claims: 0,
      webhook_deliveries: 0
    })
    expect(erasure.user_sha256).toBe(createHash("sha256").update("alice").digest("hex"))
    expect(erasure.requested_by).toMatch(/^cli(:.+)?$/)
    expect(existsSync(join(blobDir, ...(keys.alice ?? "").split("/")))).toBe(false)
    expect(existsSync(join(blobDir, ...(keys.bob ?? "").split("/")))).toBe(true)

    const again = await svc(["user", "erase", "--project", projectId, "--user", "alice"])
    expect(again.code, again.stderr).toBe(0)
    expect(again.stdout).toMatch(/^erasure era_[0-9A-Z]{26}\nthreads\t0\nmessages\t0\n/)

    const log = await svc(["user", "erasures", "--project", projectId, "--json"])
    expect(log.code, log.stderr).toBe(0)
    const erasures = JSON.parse(log.stdout).erasures
    expect(erasures).toHaveLength(2)
    expect(erasures[1]).toEqual(erasure)
    expect(log.stdout).not.toContain("alice")
    const text = await svc(["user", "erasures", "--project", projectId])
    expect(text.stdout.trim().split("\n")).toHaveLength(2)

    {
      for (const table of ["threads", "messages", "runs"]) {
        expect(
          await count(gateway, `SELECT count(*)::int AS n FROM ${table} WHERE user_id = $1`, ["alice"]),
          table
        ).toBe(0)
      }
      expect(await count(gateway, "SELECT count(*)::int AS n FROM messages WHERE user_id = $1", ["bob"])).toBe(3)
      expect(await count(gateway, "SELECT count(*)::int AS n FROM runs WHERE user_id = $1", ["bob"])).toBe(1)
      // What the CLI recorded, the admin API reads.
      const listed = await fetch(`${gateway.baseUrl}/v1/admin/projects/${projectId}/erasures`, {
        headers: { authorization: "Bearer test-admin-token-0123456789abcdefghij" }
      })
      expect((await listed.json()).erasures).toEqual(erasures)
    }
  })

  it("refuses a bad user id (exit 2) and an unknown project (exit 3)", async () => {
    const tooLong = await svc(["user", "erase", "--project", projectId, "--user", "u".repeat(256), "--json"])
    expect(tooLong.code).toBe(ExitCode.usage)
    expect(JSON.parse(tooLong.stderr)).toMatchObject({
      error: "invalid_request",
      message: `<user_id> '${"u".repeat(256)}': user_id is longer than 255 characters`
    })
    const spaced = await svc(["user", "erase", "--project", projectId, "--user", " alice"])
    expect(spaced.code).toBe(ExitCode.usage)
    expect(spaced.stderr).toMatch(/^svc: <user_id> ' alice': user_id must not start or end with spaces/)
    const unknown = await svc(["user", "erase", "--project", "proj_nope", "--user", "alice", "--json"])
    expect(unknown.code).toBe(ExitCode.notFound)
    expect(JSON.parse(unknown.stderr)).toEqual({ error: "not_found", message: "project not found" })
    expect((await svc(["user", "erasures", "--project", "proj_nope"])).code).toBe(ExitCode.notFound)
    const missing = await svc(["user", "erase", "--project", projectId])
    expect(missing.code).toBe(ExitCode.usage)
    expect(missing.stderr).toContain("usage: svc user erase --project text --user text")
  })
})
