/**
 * The Effect entry (`svc-client/effect`, SvcClient.layer) against a real
 * gateway on every store, over real HTTP, in its three auth modes (API key;
 * JWT minted by the Effect client's own `auth.issueToken`; anonymous). The
 * workspace groups, endpoint by endpoint: threads (with search), messages
 * (both batch delete forms: POST .../delete and DELETE with a JSON body),
 * runs (report with Idempotency-Key, the title as an Effect Stream), files
 * (with the upload and download themselves), scores, events (send, track and
 * flush, and the flush when the layer's scope closes), registerSdk. Project
 * reads, token minting, claim, the endpoint inventory and the four failure
 * classes are in gateway-effect-project.test.ts.
 */
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Stream from "effect/Stream"
import { CloudAPIError, SvcClient, type SvcClientService } from "svc-client/effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SDK_NAME, SDK_VERSION } from "../../sdk/core/version.js"
import { clientStores } from "../support/layers.js"
import {
  anonymousConfig,
  apiKeyConfig,
  content,
  eventsOf,
  expectSdkClients,
  getText,
  idsOf,
  jwtConfig,
  MODES,
  type Mode,
  makeFixture,
  putText,
  sdkClientsOf,
  titleMessages,
  useSdkGateway
} from "./gateway-helpers.js"

type Runtime = ManagedRuntime.ManagedRuntime<SvcClient, never>

/** The CloudAPIError an effect fails with (anything else fails the test). */
const apiError = <A, E>(effect: Effect.Effect<A, E>, status: number, code?: string) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(effect)
    expect(error).toBeInstanceOf(CloudAPIError)
    expect(error).toMatchObject({ _tag: "CloudAPIError", status, ...(code === undefined ? {} : { code }) })
    return error as CloudAPIError
  })

for (const store of clientStores)
  describe(`svc-client/effect on a real gateway (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let projectId: string
    let fixture: Awaited<ReturnType<typeof makeFixture>>
    const runtimes = {} as Record<Mode | "minter", Runtime>
    const workspaces = { apiKey: "ws-a", jwt: "ws-j", anonymous: "" } as Record<Mode, string>
    /** Runs `f` with the client of `mode`. */
    const run = <A, E>(mode: Mode | "minter", f: (client: SvcClientService) => Effect.Effect<A, E>) =>
      runtimes[mode].runPromise(Effect.flatMap(SvcClient, f))

    beforeAll(async () => {
      fixture = await makeFixture(handle.current, "sdk-effect")
      projectId = fixture.projectId
      runtimes.apiKey = ManagedRuntime.make(SvcClient.layer(apiKeyConfig(fixture, "alice", "ws-a")))
      runtimes.minter = ManagedRuntime.make(SvcClient.layer(apiKeyConfig(fixture, "jen", "ws-j")))
      const mint = () => run("minter", (client) => client.auth.issueToken()).then(({ token }) => token)
      runtimes.jwt = ManagedRuntime.make(SvcClient.layer(jwtConfig(fixture, mint)))
      runtimes.anonymous = ManagedRuntime.make(SvcClient.layer(anonymousConfig(fixture)))
    })
    afterAll(async () => {
      for (const runtime of Object.values(runtimes)) await runtime.dispose()
    })

    describe.each(MODES)("%s mode", (mode) => {
      const seed = { threadId: "", messageId: "", runId: "" }
      beforeAll(() =>
        run(mode, (client) =>
          Effect.gen(function* () {
            seed.threadId = (yield* client.threads.create({ payload: { last_message_at: new Date() } })).thread_id
            const path = { thread_id: seed.threadId }
            seed.messageId = (yield* client.messages.create({
              path,
              payload: { parent_id: null, format: "svc/v0", content: content(`Seed of ${mode} in Lisbon`) }
            })).message_id
            seed.runId = (yield* client.runs.report({
              payload: { thread_id: seed.threadId, status: "completed" }
            })).run_id
            const thread = yield* client.threads.get({ path })
            if (mode === "anonymous") workspaces.anonymous = thread.workspace_id
            expect(thread.workspace_id).toMatch(mode === "anonymous" ? /^anon_/ : /^ws-/)
          })
        )
      )

      it("threads: create, get, list, search, update, delete", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const earlier = new Date(Date.now() - 60_000)
            const { thread_id } = yield* client.threads.create({
              payload: { last_message_at: earlier, title: `Porto (${mode})`, metadata: { mode }, external_id: mode }
            })
            const path = { thread_id }
            const thread = yield* client.threads.get({ path })
            expect(thread).toMatchObject({
              id: thread_id,
              project_id: projectId,
              workspace_id: workspaces[mode],
              title: `Porto (${mode})`,
              last_message_at: earlier,
              is_archived: false,
              external_id: mode,
              metadata: { mode }
            })
            expect(thread.created_at).toBeInstanceOf(Date)
            // The contract's type: an untitled thread is null here.
            const untitled = (yield* client.threads.create({ payload: { last_message_at: new Date() } })).thread_id
            expect((yield* client.threads.get({ path: { thread_id: untitled } })).title).toBeNull()

            const all = idsOf((yield* client.threads.list()).threads)
            expect(all).toEqual(expect.arrayContaining([thread_id, untitled, seed.threadId]))
            const first = (yield* client.threads.list({ urlParams: { limit: 1 } })).threads
            const second = (yield* client.threads.list({ urlParams: { limit: 1, after: first[0]?.id ?? "" } })).threads
            expect(idsOf([...first, ...second])).toEqual(all.slice(0, 2))

            // Search in the caller's workspace only.
            const found = yield* client.threads.search({ urlParams: { q: "Porto" } })
            expect(found.results.map((hit) => hit.thread.id)).toEqual([thread_id])
            expect(found.next_offset).toBeNull()
            const lisbon = yield* client.threads.search({ urlParams: { q: "Lisbon", limit: 5, offset: 0 } })
            expect(lisbon.results.map((hit) => [hit.thread.id, hit.message_id])).toEqual([
              [seed.threadId, seed.messageId]
            ])

            yield* client.threads.update({ path, payload: { title: "Renamed", is_archived: true } })
            expect(yield* client.threads.get({ path })).toMatchObject({ title: "Renamed", is_archived: true })
            const archived = idsOf((yield* client.threads.list({ urlParams: { is_archived: true } })).threads)
            const active = idsOf((yield* client.threads.list({ urlParams: { is_archived: false } })).threads)
            expect(archived).toEqual([thread_id])
            expect(active).not.toContain(thread_id)

            expect(yield* client.threads.delete({ path: { thread_id: untitled } })).toBeUndefined()
            yield* apiError(client.threads.get({ path: { thread_id: untitled } }), 404, "not_found")
            yield* apiError(client.threads.delete({ path: { thread_id: untitled } }), 404, "not_found")
          })
        ))

      it("messages: create, list, update, feedback, deleteMany (POST) and deleteBatch (DELETE with a body)", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const { thread_id } = yield* client.threads.create({ payload: { last_message_at: new Date() } })
            const path = { thread_id }
            const create = (payload: Parameters<typeof client.messages.create>[0]["payload"]) =>
              Effect.map(client.messages.create({ path, payload }), (created) => created.message_id)
            const a = yield* create({ parent_id: null, format: "svc/v0", content: content("one") })
            const b = yield* create({ parent_id: a, format: "svc/v0", content: content("two", "assistant") })
            const c = yield* create({ format: "svc/v0", content: content("three"), external_id: "c" })
            const d = yield* create({ parent_external_id: "c", format: "ai-sdk/v6", content: { parts: [] } })
            expect(yield* create({ format: "svc/v0", content: content("again"), external_id: "c" })).toBe(c)

            const listed = (yield* client.messages.list({ path })).messages
            expect(idsOf(listed)).toEqual([a, b, c, d])
            expect(listed.map((m) => [m.parent_id, m.height])).toEqual([
              [null, 0],
              [a, 1],
              [null, 0],
              [c, 1]
            ])
            expect(listed[0]?.created_at).toBeInstanceOf(Date)
            expect(idsOf((yield* client.messages.list({ path, urlParams: { format: "ai-sdk/v6" } })).messages)).toEqual(
              [d]
            )
            expect(idsOf((yield* client.messages.list({ path, urlParams: { limit: 2, after: a } })).messages)).toEqual([
              b,
              c
            ])

            yield* client.messages.update({ path: { thread_id, message_id: b }, payload: { content: content("2") } })
            expect((yield* client.messages.list({ path })).messages[1]?.content).toEqual(content("2"))
            const feedback = yield* client.messages.feedback({
              path: { thread_id, message_id: b },
              payload: { type: "negative", comment: "too short" }
            })
            expect(feedback).toMatchObject({ feedback_id: expect.any(String), type: "negative" })

            // HttpApiClient sends the DELETE's payload as a JSON body, as the gateway wants.
            expect(yield* client.messages.deleteBatch({ path, payload: { message_ids: [a] } })).toEqual({ deleted: 2 })
            expect(idsOf((yield* client.messages.list({ path })).messages)).toEqual([c, d])
            expect(yield* client.messages.deleteMany({ path, payload: { message_ids: [c] } })).toEqual({ deleted: 2 })
            expect((yield* client.messages.list({ path })).messages).toEqual([])
            // Ids already gone count nothing; an unknown thread is 404, in both forms.
            expect(yield* client.messages.deleteBatch({ path, payload: { message_ids: [c] } })).toEqual({ deleted: 0 })
            const nowhere = { path: { thread_id: "thread_nope" }, payload: { message_ids: [c] } }
            yield* apiError(client.messages.deleteMany(nowhere), 404)
            yield* apiError(client.messages.deleteBatch(nowhere), 404)
            yield* apiError(client.messages.list({ path: { thread_id: "thread_nope" } }), 404, "not_found")
          })
        ))

      it("runs: report (Idempotency-Key) and the title as an Effect Stream", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const { thread_id } = yield* client.threads.create({ payload: { last_message_at: new Date() } })
            const payload = { thread_id, status: "error", error: "boom", input_tokens: 3, tags: [mode] } as const
            const key = `report-${mode}-${Date.now()}`
            const first = yield* client.runs.report({ payload, headers: { "idempotency-key": key } })
            const again = yield* client.runs.report({ payload, headers: { "idempotency-key": key } })
            expect(again.run_id).toBe(first.run_id)
            const other = yield* client.runs.report({ payload })
            expect(other.run_id).not.toBe(first.run_id)
            yield* apiError(
              client.runs.report({ payload: { ...payload, status: "completed" }, headers: { "idempotency-key": key } }),
              409
            )
            yield* apiError(client.runs.report({ payload: { thread_id: "thread_nope", status: "completed" } }), 404)

            const body = {
              thread_id,
              assistant_id: "system/thread_title",
              messages: titleMessages("Booking a sailing trip around the Azores in June")
            } as const
            const chunks = Chunk.toReadonlyArray(yield* Stream.runCollect(client.runs.stream(body)))
            expect(chunks.length).toBeGreaterThan(0)
            const title = chunks.join("").trim()
            expect(title.split(/\s+/).length).toBeGreaterThanOrEqual(2)
            expect((yield* client.threads.get({ path: { thread_id } })).title).toBe(title)
            // A titled thread streams the same title.
            expect(yield* Stream.mkString(client.runs.stream({ ...body, messages: [] }))).toBe(title)
            const failed = yield* Effect.flip(Stream.runDrain(client.runs.stream({ ...body, thread_id: "nope" })))
            expect(failed).toMatchObject({ _tag: "CloudAPIError", status: 404 })
          })
        ))

      it("files: uploadUrl and downloadUrl, and the file itself through them", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const upload = yield* client.files.uploadUrl({ payload: { filename: `effect-${mode}.txt` } })
            expect(upload).toMatchObject({ success: true, key: expect.stringContaining(`effect-${mode}.txt`) })
            expect(upload.expiresAt).toBeInstanceOf(Date)
            const text = `effect says hello (${mode})`
            yield* Effect.promise(() => putText(handle.current, upload.signedUrl, text))
            const download = yield* client.files.downloadUrl({ payload: { key: upload.key } })
            expect(download.key).toBe(upload.key)
            expect(download.expiresAt.getTime() - Date.now()).toBeGreaterThan(14 * 60_000)
            expect(yield* Effect.promise(() => getText(handle.current, download.signedUrl))).toBe(text)
            const byUrl = yield* client.files.downloadUrl({ payload: { url: upload.publicUrl } })
            expect(byUrl.key).toBe(upload.key)
            yield* apiError(client.files.downloadUrl({ payload: { key: upload.key.replace("effect-", "x-") } }), 404)
          })
        ))

      it("scores.create", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const { threadId, messageId, runId } = seed
            const numeric = yield* client.scores.create({
              payload: { name: "accuracy", data_type: "numeric", value: 0.75, thread_id: threadId, run_id: runId }
            })
            expect(numeric).toMatchObject({ name: "accuracy", data_type: "numeric", value: 0.75, string_value: null })
            const flag = yield* client.scores.create({
              payload: { name: "ok", data_type: "boolean", value: false, message_id: messageId }
            })
            expect(flag).toMatchObject({ value: 0 })
            const label = yield* client.scores.create({
              payload: { name: "tone", data_type: "categorical", string_value: "dry", comment: "meh" }
            })
            expect(label).toMatchObject({ value: null, string_value: "dry" })
            yield* apiError(client.scores.create({ payload: { name: "x", data_type: "numeric", run_id: "nope" } }), 400)
          })
        ))

      it("events: send, then track and flush; both stored and counted", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const { threadId, messageId } = seed
            const usage = () => runtimes.apiKey.runPromise(Effect.flatMap(SvcClient, (c) => c.projects.usagePeriod()))
            const before = (yield* Effect.promise(usage)).events
            const sent = yield* client.events.send({
              payload: { events: [{ kind: "message_sent", thread_id: threadId }, { kind: "no_such_kind" }] }
            })
            expect(sent).toEqual({ accepted: 1, rejected: [{ index: 1, error: expect.any(String) }] })
            yield* client.events.track({ kind: "message_copied", thread_id: threadId, message_id: messageId })
            yield* client.events.track({ kind: "voice_started", thread_id: threadId, props: { lang: "pt" } })
            expect(yield* Effect.promise(() => eventsOf(handle.current, projectId, threadId))).toHaveLength(1)
            yield* client.events.flush
            const rows = yield* Effect.promise(() => eventsOf(handle.current, projectId, threadId))
            expect(rows.map((row) => row.kind).sort()).toEqual(["message_copied", "message_sent", "voice_started"])
            expect((yield* Effect.promise(usage)).events).toBe(before + 3)
          })
        ))

      it("track, then the layer's scope closes: the buffer is flushed", async () => {
        const layer = SvcClient.layer(
          mode === "apiKey"
            ? apiKeyConfig(fixture, "alice", "ws-a")
            : mode === "jwt"
              ? jwtConfig(fixture, () => run("minter", (c) => c.auth.issueToken()).then(({ token }) => token))
              : anonymousConfig(fixture)
        )
        await Effect.runPromise(
          Effect.flatMap(SvcClient, (client) =>
            client.events.track({ kind: "thread_switched", thread_id: seed.threadId, value: 7 })
          ).pipe(Effect.provide(layer))
        )
        const rows = await eventsOf(handle.current, projectId, seed.threadId)
        expect(rows.filter((row) => row.kind === "thread_switched").map((row) => Number(row.value))).toEqual([7])
      })

      it("registerSdk: the identity appears in the project's SDK client list", () =>
        run(mode, (client) =>
          Effect.gen(function* () {
            const name = `gateway-effect-${mode}`
            yield* client.registerSdk({ name: ` ${name}`, version: "2.0.0 " })
            yield* client.registerSdk({ name: "bad\u0007", version: "1" })
            yield* client.threads.list({ urlParams: { limit: 1 } })
            yield* Effect.promise(() =>
              expectSdkClients(handle.current, projectId, [`${SDK_NAME}/${SDK_VERSION}`, `${name}/2.0.0`])
            )
            const listed = yield* Effect.promise(() => sdkClientsOf(handle.current, projectId))
            expect(listed.some((token) => token.startsWith("bad"))).toBe(false)
          })
        ))
    })

    it("the gateway logged no error", () => {
      expect(errors).toEqual([])
    })
  })
