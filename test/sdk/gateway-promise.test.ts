/**
 * The promise entry (`svc-client`, AssistantCloud) against a real gateway on
 * every store, over real HTTP, in its three auth modes: API key on the
 * backend host, JWT (minted by the gateway's own POST /v1/auth/tokens) and
 * anonymous on the project's frontend URL. Every namespace the client has:
 * threads and their messages, runs (report, title stream, generateThreadTitle),
 * files (with the upload and download themselves), scores, events (counted in
 * usage), registerSdk (the project's SDK client list). The project reads,
 * token minting and claim are in gateway-promise-project.test.ts.
 */
import { AssistantCloud, generateThreadTitle } from "svc-client"
import { beforeAll, describe, expect, it } from "vitest"
import { SDK_NAME, SDK_VERSION } from "../../sdk/core/version.js"
import { clientStores } from "../support/layers.js"
import {
  apiError,
  clientsByMode,
  content,
  eventsOf,
  eventually,
  expectSdkClients,
  getText,
  idsOf,
  MODES,
  type Mode,
  makeFixture,
  putText,
  sdkClientsOf,
  titleMessages,
  useSdkGateway
} from "./gateway-helpers.js"

const minutesFromNow = (iso: string) => (Date.parse(iso) - Date.now()) / 60_000

for (const store of clientStores)
  describe(`svc-client promise entry on a real gateway (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let projectId: string
    let clouds: Record<Mode, AssistantCloud>
    /** The workspace each mode acts in (the anonymous user's own id, learnt from its first thread). */
    const workspaces = { apiKey: "ws-a", jwt: "ws-j", anonymous: "" } as Record<Mode, string>
    /** Reads the project (usage) with the API key. */
    let reader: AssistantCloud

    beforeAll(async () => {
      const fixture = await makeFixture(handle.current, "sdk-promise")
      projectId = fixture.projectId
      clouds = clientsByMode(fixture)
      reader = clouds.apiKey
    })

    describe.each(MODES)("%s mode", (mode) => {
      const cloud = () => clouds[mode]
      /** A thread with one message and one reported run, for the tests that need targets. */
      const seed = { threadId: "", messageId: "", runId: "" }

      beforeAll(async () => {
        seed.threadId = (await cloud().threads.create({ last_message_at: new Date() })).thread_id
        seed.messageId = (
          await cloud().threads.messages.create(seed.threadId, {
            parent_id: null,
            format: "svc/v0",
            content: content(`Seed message of ${mode}`)
          })
        ).message_id
        seed.runId = (await cloud().runs.report({ thread_id: seed.threadId, status: "completed" })).run_id
        const thread = await cloud().threads.get(seed.threadId)
        if (mode === "anonymous") {
          expect(thread.workspace_id).toMatch(/^anon_/)
          workspaces.anonymous = thread.workspace_id
        }
      })

      it("threads: create, get, list (filters and pages), update, archive, delete", async () => {
        const earlier = new Date(Date.now() - 60_000)
        const { thread_id } = await cloud().threads.create({
          last_message_at: earlier,
          title: `Trip (${mode})`,
          metadata: { mode, n: 1 },
          external_id: `ext-${mode}`
        })
        const thread = await cloud().threads.get(thread_id)
        expect(thread).toMatchObject({
          id: thread_id,
          project_id: projectId,
          workspace_id: workspaces[mode],
          title: `Trip (${mode})`,
          is_archived: false,
          external_id: `ext-${mode}`,
          metadata: { mode, n: 1 }
        })
        expect(thread.created_at).toBeInstanceOf(Date)
        expect(thread.updated_at).toBeInstanceOf(Date)
        expect(thread.last_message_at).toEqual(earlier)

        // A thread without a title reads as "" (the server's null).
        const { thread_id: untitled } = await cloud().threads.create({ last_message_at: new Date() })
        expect((await cloud().threads.get(untitled)).title).toBe("")

        const all = idsOf((await cloud().threads.list()).threads)
        expect(all).toEqual(expect.arrayContaining([thread_id, untitled, seed.threadId]))
        // Newest last message first; one at a time with after.
        const first = (await cloud().threads.list({ limit: 1 })).threads
        expect(first).toHaveLength(1)
        const second = (await cloud().threads.list({ limit: 1, after: first[0]?.id ?? "" })).threads
        expect(idsOf([...first, ...second])).toEqual(all.slice(0, 2))

        expect(
          await cloud().threads.update(thread_id, {
            title: "Renamed",
            is_archived: true,
            metadata: { mode, n: 2 },
            last_message_at: new Date(earlier.getTime() + 1_000)
          })
        ).toBeUndefined()
        expect(await cloud().threads.get(thread_id)).toMatchObject({
          title: "Renamed",
          is_archived: true,
          metadata: { mode, n: 2 },
          last_message_at: new Date(earlier.getTime() + 1_000)
        })
        const archived = idsOf((await cloud().threads.list({ is_archived: true })).threads)
        const active = idsOf((await cloud().threads.list({ is_archived: false })).threads)
        expect(archived).toEqual([thread_id])
        expect(active).toEqual(expect.arrayContaining([untitled, seed.threadId]))
        expect(active).not.toContain(thread_id)

        expect(await cloud().threads.delete(untitled)).toBeUndefined()
        await apiError(cloud().threads.get(untitled), 404, "not_found")
        await apiError(cloud().threads.update(untitled, { title: "gone" }), 404, "not_found")
        // Refused on the server, not trimmed.
        await apiError(cloud().threads.create({ last_message_at: new Date(), title: "x".repeat(256) }), 400)
      })

      it("messages: create (a tree, external ids), list (format, pages), update, feedback, batch delete", async () => {
        const { thread_id } = await cloud().threads.create({ last_message_at: new Date() })
        const messages = cloud().threads.messages
        const root = (
          await messages.create(thread_id, {
            parent_id: null,
            format: "svc/v0",
            content: content("Where should we stay in Lisbon?")
          })
        ).message_id
        const reply = (
          await messages.create(thread_id, {
            parent_id: root,
            format: "svc/v0",
            content: content("Alfama is lovely.", "assistant")
          })
        ).message_id
        const other = (
          await messages.create(thread_id, {
            format: "ai-sdk/v6",
            content: { role: "user", parts: [{ type: "text", text: "and in Porto?" }] },
            external_id: `client-${mode}`
          })
        ).message_id
        // The same external id and content again (a retry): the first message's id, nothing stored.
        const again = await messages.create(thread_id, {
          format: "ai-sdk/v6",
          content: { role: "user", parts: [{ type: "text", text: "and in Porto?" }] },
          external_id: `client-${mode}`
        })
        expect(again).toEqual({ message_id: other })

        const listed = (await messages.list(thread_id)).messages
        expect(idsOf(listed)).toEqual([root, reply, other])
        // svc/v0 is answered under the original's name, aui/v0 (docs/decisions.md, issue 26).
        expect(listed.map((m) => [m.parent_id, m.height, m.format, m.external_id])).toEqual([
          [null, 0, "aui/v0", null],
          [root, 1, "aui/v0", null],
          [null, 0, "ai-sdk/v6", `client-${mode}`]
        ])
        expect(listed[0]?.created_at).toBeInstanceOf(Date)
        expect(listed[1]?.content).toEqual(content("Alfama is lovely.", "assistant"))
        expect(idsOf((await messages.list(thread_id, { format: "ai-sdk/v6" })).messages)).toEqual([other])
        expect(idsOf((await messages.list(thread_id, { limit: 1, after: root })).messages)).toEqual([reply])

        expect(await messages.update(thread_id, reply, { content: content("Baixa, then.", "assistant") })).toBe(
          undefined
        )
        expect((await messages.list(thread_id)).messages[1]?.content).toEqual(content("Baixa, then.", "assistant"))

        expect(await messages.feedback(thread_id, reply, { type: "positive", comment: "  helpful  " })).toEqual({
          feedback_id: expect.any(String),
          type: "positive"
        })
        // A second one replaces the first.
        expect((await messages.feedback(thread_id, reply, { type: "negative" })).type).toBe("negative")
        const feedback = await handle.current.sql<{ type: string; comment: string | null }>(
          "SELECT type, comment FROM message_feedback WHERE message_id = $1",
          [reply]
        )
        expect(feedback).toEqual([{ type: "negative", comment: null }])

        // The DELETE form with { message_ids }: the root and its reply go.
        expect(await messages.delete(thread_id, { message_ids: [root] })).toEqual({ deleted: 2 })
        expect(idsOf((await messages.list(thread_id)).messages)).toEqual([other])
        await apiError(messages.delete(thread_id, { message_ids: [] }), 400, "invalid_request")
        await apiError(messages.list("thread_nope"), 404)
        await apiError(
          messages.create(thread_id, { parent_id: "msg_nope", format: "svc/v0", content: content("x") }),
          400,
          "invalid_request"
        )
      })

      it("runs: report, the title stream, generateThreadTitle", async () => {
        const { thread_id } = await cloud().threads.create({ last_message_at: new Date() })
        const { run_id } = await cloud().runs.report({
          thread_id,
          status: "completed",
          model_id: "gpt-4o-mini",
          provider: "openai",
          input_tokens: 12,
          output_tokens: 5,
          duration_ms: 640,
          tags: [mode]
        })
        expect(run_id).toEqual(expect.any(String))
        const run = await reader.projects.runs.get(run_id)
        expect(run).toMatchObject({
          thread_id,
          workspace_id: workspaces[mode],
          status: "completed",
          model_id: "gpt-4o-mini",
          input_tokens: 12,
          output_tokens: 5,
          tags: [mode]
        })
        await apiError(cloud().runs.report({ thread_id: "thread_nope", status: "completed" }), 404)

        // The stream (an AssistantStream, issue 26): a text part whose text deltas are the title, then
        // stored on the thread.
        const stream = await cloud().runs.stream({
          thread_id,
          assistant_id: "system/thread_title",
          messages: titleMessages("Planning a week in Lisbon with the kids in May")
        })
        const chunks: Array<{ type: string; textDelta: string }> = []
        const types = new Set<string>()
        for (const reader = stream.getReader(); ; ) {
          const { done, value } = await reader.read()
          if (done) break
          types.add(value.type)
          if (value.type === "text-delta") chunks.push({ type: value.type, textDelta: value.textDelta })
        }
        expect(chunks.length).toBeGreaterThan(0)
        expect(types).toContain("part-start")
        const title = chunks
          .map((chunk) => chunk.textDelta)
          .join("")
          .trim()
        expect(title.split(/\s+/).length).toBeGreaterThanOrEqual(2)
        expect((await cloud().threads.get(thread_id)).title).toBe(title)

        // generateThreadTitle: a titled thread gets its own title back (and writes it again).
        expect(await generateThreadTitle(cloud(), { threadId: thread_id, messages: titleMessages("other") })).toBe(
          title
        )
        // An untitled thread gets one, written to it; no text gives null and writes nothing.
        const { thread_id: fresh } = await cloud().threads.create({ last_message_at: new Date() })
        const generated = await generateThreadTitle(cloud(), {
          threadId: fresh,
          messages: titleMessages("Which museums in Porto are open on Mondays")
        })
        expect(generated).toEqual(expect.any(String))
        expect((await cloud().threads.get(fresh)).title).toBe(generated)
        const { thread_id: silent } = await cloud().threads.create({ last_message_at: new Date() })
        expect(await generateThreadTitle(cloud(), { threadId: silent, messages: [] })).toBeNull()
        expect((await cloud().threads.get(silent)).title).toBe("")
        await apiError(
          cloud().runs.stream({ thread_id: "thread_nope", assistant_id: "system/thread_title", messages: [] }),
          404
        )
      })

      it("files: upload and download URLs, and the file itself through them", async () => {
        const upload = await cloud().files.generatePresignedUploadUrl({ filename: `notes-${mode}.txt` })
        expect(upload).toEqual({
          success: true,
          signedUrl: expect.any(String),
          expiresAt: expect.any(String),
          publicUrl: expect.any(String),
          key: expect.stringContaining(`notes-${mode}.txt`)
        })
        expect(minutesFromNow(upload.expiresAt)).toBeGreaterThan(14.5)
        const key = upload.key ?? ""
        const text = `hello from ${mode}\n`
        await putText(handle.current, upload.signedUrl, text)
        const download = await cloud().files.generatePresignedDownloadUrl({ key })
        expect(download).toEqual({ signedUrl: expect.any(String), expiresAt: expect.any(String), key })
        expect(minutesFromNow(download.expiresAt)).toBeGreaterThan(14.5)
        expect(await getText(handle.current, download.signedUrl)).toBe(text)
        // By the public URL the upload answered: the same key.
        expect((await cloud().files.generatePresignedDownloadUrl({ url: upload.publicUrl })).key).toBe(key)
        await apiError(cloud().files.generatePresignedUploadUrl({ filename: "tool.exe" }), 400)
        await apiError(cloud().files.generatePresignedDownloadUrl({ key: key.replace("notes-", "other-") }), 404)
        await apiError(cloud().files.generatePresignedDownloadUrl({ key: "elsewhere" }), 400)
      })

      it("scores: numeric, boolean and categorical, on a thread, message and run", async () => {
        expect(
          await cloud().scores.create({
            name: "helpfulness",
            data_type: "numeric",
            value: 4.5,
            comment: "good",
            thread_id: seed.threadId,
            message_id: seed.messageId,
            run_id: seed.runId
          })
        ).toEqual({
          score_id: expect.any(String),
          name: "helpfulness",
          data_type: "numeric",
          value: 4.5,
          string_value: null
        })
        expect(
          await cloud().scores.create({ name: "resolved", data_type: "boolean", value: true, thread_id: seed.threadId })
        ).toMatchObject({ data_type: "boolean", value: 1, string_value: null })
        expect(
          await cloud().scores.create({
            name: "tone",
            data_type: "categorical",
            string_value: "warm",
            run_id: seed.runId
          })
        ).toMatchObject({ data_type: "categorical", value: null, string_value: "warm" })
        const listed = (await reader.projects.scores.list({ run_id: seed.runId })).scores
        expect(listed.map((score) => score.name).sort()).toEqual(["helpfulness", "tone"])
        await apiError(cloud().scores.create({ name: "tone", data_type: "categorical" }), 400)
        await apiError(cloud().scores.create({ name: "x", data_type: "numeric", value: 1, thread_id: "nope" }), 404)
      })

      it("events: track buffers, dispose sends; the events are stored and counted in usage", async () => {
        const before = (await reader.projects.usage.period()).events
        const { threadId, messageId, runId } = seed
        cloud().events.track({ kind: "message_copied", thread_id: threadId, message_id: messageId })
        cloud().events.track({ kind: "suggestions_shown", thread_id: threadId, value: 3, props: { surface: "chat" } })
        cloud().events.track({ kind: "run_stopped", thread_id: threadId, run_id: runId })
        // An id over 48 characters is dropped from the event, which stays.
        cloud().events.track({ kind: "branch_switched", thread_id: threadId, message_id: "m".repeat(49) })
        // Buffered until the flush.
        expect(await eventsOf(handle.current, projectId, threadId)).toEqual([])
        await cloud().events.dispose()
        const rows = await eventsOf(handle.current, projectId, threadId)
        expect(rows.map((row) => [row.kind, row.message_id]).sort()).toEqual([
          ["branch_switched", null],
          ["message_copied", messageId],
          ["run_stopped", null],
          ["suggestions_shown", null]
        ])
        expect(rows.find((row) => row.kind === "suggestions_shown")).toMatchObject({ props: { surface: "chat" } })
        await eventually(async () => expect((await reader.projects.usage.period()).events).toBe(before + 4))
        // Dispose again with nothing buffered sends nothing.
        await cloud().events.dispose()
        expect(await eventsOf(handle.current, projectId, threadId)).toHaveLength(4)
      })

      it("registerSdk: each identity appears in the project's SDK client list", async () => {
        const name = `gateway-promise-${mode}`
        cloud().registerSdk({ name: `  ${name} `, version: " 1.4.0 " })
        cloud().registerSdk({ name: "with space", version: "1.0.0" })
        cloud().registerSdk({ name, version: "1.4.0" })
        await cloud().threads.list({ limit: 1 })
        await expectSdkClients(handle.current, projectId, [`${SDK_NAME}/${SDK_VERSION}`, `${name}/1.4.0`])
        const listed = await sdkClientsOf(handle.current, projectId)
        expect(listed.filter((token) => token.startsWith(name))).toEqual([`${name}/1.4.0`])
        expect(listed.some((token) => token.includes("with"))).toBe(false)
      })
    })

    it("the gateway logged no error", () => {
      expect(errors).toEqual([])
    })
  })
