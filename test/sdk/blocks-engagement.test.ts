/**
 * CloudEngagementReporter against a real gateway on every store, over real
 * HTTP, in the three auth modes: a chat session as an app reports it, with
 * its own thread and message ids mapped to the gateway's by the resolver as
 * they are stored. The events reach POST /v1/events through the client's
 * buffer (flushed by `events.dispose()`), are stored under the thread with
 * the gateway's ids, once where the rules say once, and are counted in the
 * project's usage.
 */
import { AssistantCloud, CloudEngagementReporter, type EngagementIdResolver } from "svc-client"
import { beforeAll, describe, expect, it } from "vitest"
import { clientStores } from "../support/layers.js"
import {
  clientsByMode,
  content,
  eventsOf,
  eventually,
  MODES,
  type Mode,
  makeFixture,
  useSdkGateway
} from "./gateway-helpers.js"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The clock just before and just after `call`. */
const bracket = (call: () => void) => {
  const before = Date.now()
  call()
  return { before, after: Date.now() }
}

/** An elapsed time measured from within `from` to within `to`: no less than between them, no more than across them. */
const expectBetween = (
  value: number | null,
  from: { before: number; after: number },
  to: { before: number; after: number }
) => {
  expect(value).toBeGreaterThanOrEqual(to.before - from.after)
  expect(value).toBeLessThanOrEqual(to.after - from.before)
}

/**
 * The resolver of an app whose persistence learns the gateway's ids as it
 * stores things: a send waits for its thread to be stored, other events use
 * what is known (an unknown message is left out). `settled()` waits until
 * every resolution so far has reached the client's buffer.
 */
const appIds = () => {
  const threads = new Map<string, string>()
  const messages = new Map<string, string>()
  const waiting = new Map<string, Array<(id: string) => void>>()
  const pending: Array<Promise<unknown>> = []
  const remoteThread = (local: string): Promise<string> => {
    const known = threads.get(local)
    if (known !== undefined) return Promise.resolve(known)
    return new Promise((resolve) => waiting.set(local, [...(waiting.get(local) ?? []), resolve]))
  }
  const resolveIds: EngagementIdResolver = (threadId, messageId, { awaitThread }) => {
    const ids = (thread: string | undefined) => {
      const message = messageId === undefined ? undefined : messages.get(messageId)
      return { thread_id: thread, message_id: message }
    }
    const answer = awaitThread ? remoteThread(threadId).then(ids) : Promise.resolve(ids(threads.get(threadId)))
    pending.push(answer)
    return answer
  }
  return {
    resolveIds,
    threadStored(local: string, remote: string) {
      threads.set(local, remote)
      for (const resolve of waiting.get(local) ?? []) resolve(remote)
      waiting.delete(local)
    },
    messageStored(local: string, remote: string) {
      messages.set(local, remote)
    },
    /** Every resolution so far settled, and the reporter's step after it run. */
    async settled() {
      for (let seen = -1; seen !== pending.length; ) {
        seen = pending.length
        await Promise.allSettled(pending)
        await sleep(0)
      }
    }
  }
}

for (const store of clientStores)
  describe(`CloudEngagementReporter on a real gateway (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let projectId: string
    let clouds: Record<Mode, AssistantCloud>
    /** Reads the project (usage) with the API key. */
    let reader: AssistantCloud

    beforeAll(async () => {
      const fixture = await makeFixture(handle.current, "sdk-engagement")
      projectId = fixture.projectId
      clouds = clientsByMode(fixture)
      reader = clouds.apiKey
    })

    describe.each(MODES)("%s mode", (mode) => {
      const cloud = () => clouds[mode]

      it("a chat session's events reach the gateway with its ids, once per run or thread where the rules say so, counted in usage", async () => {
        const before = (await reader.projects.usage.period()).events
        const app = appIds()
        const reporter = new CloudEngagementReporter(cloud, app.resolveIds)
        const storeMessage = async (local: string, parentId: string | null, role: string) => {
          const { message_id } = await cloud().threads.messages.create(remoteThreadId, {
            parent_id: parentId,
            format: "svc/v0",
            content: content(`${local} (${mode})`, role)
          })
          app.messageStored(local, message_id)
          return message_id
        }

        // The user opens a new chat and sends: the switch names a thread not stored yet (dropped), the send waits.
        reporter.threadSwitched("local-thread")
        reporter.messageSent("local-thread", { messageId: "local-m1", chars: 11, attachments: 0 })
        const remoteThreadId = (await cloud().threads.create({ last_message_at: new Date() })).thread_id
        const m1 = await storeMessage("local-m1", null, "user")
        app.threadStored("local-thread", remoteThreadId)

        // The first run fails to show an error twice and offers suggestions twice: one event each.
        reporter.runStarted("local-thread")
        reporter.errorShown("local-thread", { messageId: "local-m1", reason: "network" })
        reporter.errorShown("local-thread", { messageId: "local-m1", reason: "network" })
        reporter.suggestionsShown("local-thread", 3)
        await sleep(40)
        const ended = bracket(() => reporter.runEnded("local-thread"))
        const m2 = await storeMessage("local-m2", m1, "assistant")
        reporter.suggestionsShown("local-thread", 2)

        // The next send comes a while after the run ended, with an attachment.
        await sleep(80)
        const m3 = await storeMessage("local-m3", m2, "user")
        const sent = bracket(() =>
          reporter.messageSent("local-thread", { messageId: "local-m3", chars: 5, attachments: 1 })
        )

        // The second run shows its own error, and the user stops it (twice: one event).
        const started = bracket(() => reporter.runStarted("local-thread"))
        reporter.errorShown("local-thread", { reason: "timeout" })
        await sleep(60)
        const stopped = bracket(() => reporter.runStopped("local-thread"))
        reporter.runStopped("local-thread")

        // Then copies the answer, approves a tool call, and comes back to the (now stored) thread.
        reporter.messageCopied("local-thread", "local-m2")
        reporter.toolApproved("local-thread", "local-m2", "call-1")
        reporter.threadSwitched("local-thread")

        await app.settled()
        await cloud().events.dispose()
        const rows = await eventsOf(handle.current, projectId, remoteThreadId)
        expect(rows.map((row) => row.kind).sort()).toEqual([
          "error_shown",
          "error_shown",
          "message_copied",
          "message_sent",
          "message_sent",
          "run_stopped",
          "suggestions_shown",
          "thread_switched",
          "tool_approved"
        ])
        const row = (kind: string, messageId: string | null) => {
          const found = rows.find((candidate) => candidate.kind === kind && candidate.message_id === messageId)
          expect(found, `${kind} of ${messageId}`).toBeDefined()
          return { ...found, value: found?.value == null ? null : Number(found.value) }
        }
        // The first send: no run had ended; the second: the time since the run ended (80 ms and more).
        expect(row("message_sent", m1)).toMatchObject({ value: null, props: { chars: 11, attachments: 0 } })
        const second = row("message_sent", m3)
        expect(second).toMatchObject({ props: { chars: 5, attachments: 1 } })
        expectBetween(second.value, ended, sent)
        expect(row("error_shown", m1)).toMatchObject({ props: { reason: "network" } })
        expect(row("error_shown", null)).toMatchObject({ props: { reason: "timeout" } })
        expect(row("suggestions_shown", null)).toMatchObject({ value: 3 })
        expectBetween(row("run_stopped", null).value, started, stopped)
        expect(row("message_copied", m2)).toMatchObject({ value: null, props: null })
        expect(row("tool_approved", m2)).toMatchObject({ props: { toolCallId: "call-1" } })
        expect(row("thread_switched", null)).toMatchObject({ value: null })

        // Every event was accepted and counted: 9 more in the project's usage.
        await eventually(async () => expect((await reader.projects.usage.period()).events).toBe(before + 9))
        expect(errors).toEqual([])
      })
    })
  })
