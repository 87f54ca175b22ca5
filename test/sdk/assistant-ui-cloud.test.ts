/**
 * Issue 26: the client as assistant-ui's cloud client, against a real gateway on every store and in
 * every auth mode (docs/decisions.md "assistant-ui as the cloud client (issue 26)"). Each test does
 * what assistant-ui's runtime does with the client object, as its history adapter and thread list
 * are written: messages in its own format name `aui/v0`; an assistant message stored while it
 * streams and stored again when finished; the history loaded through the persistence, reversed, and
 * read parent before child; the title stream read with assistant-stream's accumulator.
 */
import { AssistantMessageStream } from "assistant-stream"
import {
  type AssistantCloud,
  type CloudMessage,
  CloudMessagePersistence,
  createFormattedPersistence,
  generateThreadTitle,
  type MessageFormatAdapter
} from "svc-client"
import { beforeAll, describe, expect, it } from "vitest"
import { asProject } from "../support/helpers.js"
import { clientStores } from "../support/layers.js"
import { clientsByMode, idsOf, MODES, type Mode, makeFixture, useSdkGateway } from "./gateway-helpers.js"

const AUI = "aui/v0"

/** An `aui/v0` message as assistant-ui encodes it (the parts of its ThreadMessage that matter here). */
const auiMessage = (role: "user" | "assistant", text: string, status?: "running" | "complete") => ({
  role,
  content: text === "" ? [] : [{ type: "text", text }],
  ...(status === undefined ? {} : { status: { type: status } }),
  metadata: { custom: {} }
})

/** assistant-ui's decode of a stored `aui/v0` message: its parent and its message under the stored id. */
const auiDecode = (stored: CloudMessage): { parentId: string | null; message: { id: string; content?: unknown } } => ({
  parentId: stored.parent_id,
  message: { ...stored.content, id: stored.id }
})

/**
 * How assistant-ui's thread imports a history (ExportedMessageRepository, oldest first): a message
 * whose parent it has not read yet is dropped. Answers the ids kept.
 */
const importHistory = (items: ReadonlyArray<{ parentId: string | null; message: { id: string } }>) => {
  const seen = new Set<string>()
  for (const { parentId, message } of items) if (parentId === null || seen.has(parentId)) seen.add(message.id)
  return [...seen]
}

/** The title as assistant-ui's thread list reads it from the stream: the first text part of the accumulated message. */
const titleOf = async (stream: Awaited<ReturnType<AssistantCloud["runs"]["stream"]>>) => {
  let title: string | undefined
  for await (const message of AssistantMessageStream.fromAssistantStream(stream))
    title = message.parts.filter((part) => part.type === "text")[0]?.text ?? title
  return title
}

for (const store of clientStores)
  describe(`the client as assistant-ui's cloud client (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let clouds: Record<Mode, AssistantCloud>
    let apiKey = ""

    beforeAll(async () => {
      const fixture = await makeFixture(handle.current, "sdk-assistant-ui")
      apiKey = fixture.apiKey
      clouds = clientsByMode(fixture)
    })

    /** The gateway's own view of a thread's messages (the project read API), wire names as stored. */
    const stored = async (threadId: string) => {
      const reply = await asProject(handle.current, apiKey)(`/threads/${threadId}/messages`)
      expect(reply.status, reply.text).toBe(200)
      return reply.body.messages as Array<{ id: string; format: string; external_id: string | null; content: any }>
    }

    describe.each(MODES)("%s mode", (mode) => {
      const cloud = () => clouds[mode]
      // As assistant-ui's thread list creates one (no title: the title stream makes it).
      const newThread = async () => (await cloud().threads.create({ last_message_at: new Date() })).thread_id

      it("aui/v0 goes out as svc/v0, so search reads the text; it comes back as aui/v0", async () => {
        const threadId = await newThread()
        const word = `wombat${mode.toLowerCase()}`
        const { message_id } = await cloud().threads.messages.create(threadId, {
          parent_id: null,
          format: AUI,
          content: auiMessage("user", `where do ${word}s sleep`)
        })
        expect((await stored(threadId)).map((row) => [row.id, row.format])).toEqual([[message_id, "svc/v0"]])
        const search = await asProject(handle.current, apiKey)(`/search?q=${word}s`)
        expect(search.status, search.text).toBe(200)
        expect(search.body.results.map((hit: { message_id: string }) => hit.message_id)).toEqual([message_id])

        // Read back under assistant-ui's name, with or without a format filter (either name filters).
        for (const query of [undefined, { format: AUI }, { format: "svc/v0" }]) {
          const { messages } = await cloud().threads.messages.list(threadId, query)
          expect(messages.map((message) => [message.id, message.format])).toEqual([[message_id, AUI]])
        }
        // Another format is neither renamed nor matched by the filter.
        await cloud().threads.messages.create(threadId, { parent_id: null, format: "ai-sdk/v6", content: {} })
        expect((await cloud().threads.messages.list(threadId, { format: AUI })).messages).toHaveLength(1)
        expect((await cloud().threads.messages.list(threadId)).messages.map((message) => message.format)).toEqual([
          AUI,
          "ai-sdk/v6"
        ])
      })

      it("a message stored while it streams and again when finished is one message with the final content", async () => {
        const threadId = await newThread()
        const persistence = new CloudMessagePersistence(cloud)
        await persistence.append(threadId, "u1", null, AUI, auiMessage("user", "plan a day in Sintra"))
        // The assistant's message while it streams, then finished (same local id).
        await persistence.append(threadId, "a1", "u1", AUI, auiMessage("assistant", "", "running"))
        const streamingId = persistence.getResolvedRemoteId("a1")
        await persistence.append(
          threadId,
          "a1",
          "u1",
          AUI,
          auiMessage("assistant", "Pena Palace first, then Quinta da Regaleira.", "complete")
        )
        expect(persistence.getResolvedRemoteId("a1")).toBe(streamingId)
        const rows = await stored(threadId)
        expect(rows.map((row) => [row.id, row.external_id, row.format])).toEqual([
          [persistence.getResolvedRemoteId("u1"), "u1", "svc/v0"],
          [streamingId, "a1", "svc/v0"]
        ])
        expect(rows[1]?.content).toEqual(
          auiMessage("assistant", "Pena Palace first, then Quinta da Regaleira.", "complete")
        )
        // The finished text is what search finds.
        const search = await asProject(handle.current, apiKey)("/search?q=Regaleira")
        expect(search.body.results.map((hit: { message_id: string }) => hit.message_id)).toContain(streamingId)
      })

      it("load is newest first: reversed, the whole history imports, each parent before its children", async () => {
        const threadId = await newThread()
        const writer = new CloudMessagePersistence(cloud)
        // A conversation with an edited first question (u1b) and a regenerated answer (a2b).
        const tree: ReadonlyArray<readonly [string, string | null, "user" | "assistant"]> = [
          ["u1", null, "user"],
          ["a1", "u1", "assistant"],
          ["u2", "a1", "user"],
          ["a2", "u2", "assistant"],
          ["a2b", "u2", "assistant"],
          ["u1b", null, "user"],
          ["a1b", "u1b", "assistant"]
        ]
        for (const [id, parent, role] of tree) await writer.append(threadId, id, parent, AUI, auiMessage(role, id))
        const remote = (local: string) => writer.getResolvedRemoteId(local) ?? expect.fail(`no remote id for ${local}`)
        const inOrder = tree.map(([id]) => remote(id))

        // assistant-ui's history adapter, after a page reload: persistence.load, filter, decode, reverse.
        const persistence = new CloudMessagePersistence(cloud())
        const loaded = await persistence.load(threadId, AUI)
        expect(idsOf(loaded)).toEqual([...inOrder].reverse())
        const history = loaded
          .filter((message) => message.format === AUI)
          .map(auiDecode)
          .reverse()
        expect(importHistory(history)).toEqual(inOrder)
        expect(history.map((item) => item.message.content)).toEqual(tree.map(([id]) => [{ type: "text", text: id }]))
        expect(persistence.isPersisted(remote("a2b"))).toBe(true)

        // The same through createFormattedPersistence with an adapter of assistant-ui's format.
        const auiAdapter: MessageFormatAdapter<{ id: string; text: string }, ReturnType<typeof auiMessage>> = {
          format: AUI,
          encode: ({ message }) => auiMessage("user", message.text),
          decode: ({ id, parent_id, content }) => ({
            parentId: parent_id,
            message: { id, text: String((content.content[0] as { text?: string } | undefined)?.text) }
          }),
          getId: (message) => message.id
        }
        const formatted = await createFormattedPersistence(new CloudMessagePersistence(cloud()), auiAdapter).load(
          threadId
        )
        expect(importHistory(formatted.messages)).toEqual(inOrder)
        expect(formatted.messages.map((item) => item.message.text)).toEqual(tree.map(([id]) => id))
      })

      it("the title stream is an AssistantStream: assistant-stream reads the title from it, and the list shows it", async () => {
        const threadId = await newThread()
        const messages = [
          { role: "user", content: [{ type: "text", text: "Which beaches near Lisbon are good for children?" }] },
          { role: "assistant", content: [{ type: "text", text: "Carcavelos and Costa da Caparica." }] }
        ]
        const title = await titleOf(
          await cloud().runs.stream({ thread_id: threadId, assistant_id: "system/thread_title", messages })
        )
        expect(title?.trim().split(/\s+/).length).toBeGreaterThanOrEqual(2)
        const listed = (await cloud().threads.list({ limit: 100 })).threads.find((thread) => thread.id === threadId)
        expect(listed?.title).toBe(title?.trim())
        // A titled thread streams its title again; generateThreadTitle reads the same stream.
        expect(
          await titleOf(
            await cloud().runs.stream({ thread_id: threadId, assistant_id: "system/thread_title", messages: [] })
          )
        ).toBe(title)
        expect(await generateThreadTitle(cloud(), { threadId, messages })).toBe(title?.trim())
      })
    })

    it("logs no error", () => {
      expect(errors).toEqual([])
    })
  })
