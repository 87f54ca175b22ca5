/**
 * docs/client-library.md "Building blocks" (CloudEngagementReporter, which resolves
 * runtime ids and records interaction events): a real
 * AssistantCloud over a scripted fetch, its event buffer flushed by
 * `events.dispose()`, the POST /v1/events bodies read back; fake timers for
 * the elapsed times.
 */
import { type AssistantCloud, CloudEngagementReporter, type EngagementIdResolver } from "svc-client"
import { afterEach, describe, expect, it, vi } from "vitest"
import { EVENT_KINDS } from "../../../schema/Event.js"
import { apiKeyClient, FakeFetch, settle, T0, useClock } from "./fakes.js"

afterEach(() => {
  vi.useRealTimers()
})

/** Every event sent so far, in order. */
const sentEvents = (fake: FakeFetch): Array<Record<string, unknown>> =>
  fake.to("/v1/events").flatMap((sent) => (FakeFetch.json(sent) as { events: Array<Record<string, unknown>> }).events)

/** Lets the reporter's id resolutions reach the buffer, then flushes it; answers the events sent. */
const flushed = async (fake: FakeFetch, cloud: AssistantCloud) => {
  await settle()
  await cloud.events.dispose()
  return sentEvents(fake)
}

const setup = (resolveIds?: EngagementIdResolver) => {
  const fake = new FakeFetch()
  const cloud = apiKeyClient(fake)
  const reporter =
    resolveIds === undefined ? new CloudEngagementReporter(cloud) : new CloudEngagementReporter(cloud, resolveIds)
  return { fake, cloud, reporter }
}

/** A resolver prefixing every id with `remote-`, recording its calls. */
const remoteIds = () => {
  const calls: Array<[string, string | undefined, { readonly awaitThread: boolean }]> = []
  const resolve: EngagementIdResolver = async (threadId, messageId, options) => {
    calls.push([threadId, messageId, options])
    return messageId === undefined
      ? { thread_id: `remote-${threadId}` }
      : { thread_id: `remote-${threadId}`, message_id: `remote-${messageId}` }
  }
  return { calls, resolve }
}

describe("CloudEngagementReporter (client library, building blocks)", () => {
  it("CloudEngagementReporter(cloud | () => cloud, resolveIds?): a client, or a function called for the client at each send", async () => {
    const fake = new FakeFetch()
    const cloud = apiKeyClient(fake)
    new CloudEngagementReporter(cloud).messageCopied("t1", "m1")
    const getCloud = vi.fn(() => cloud)
    const lazy = new CloudEngagementReporter(getCloud)
    expect(getCloud).not.toHaveBeenCalled()
    lazy.voiceStarted("t2")
    lazy.voiceStarted("t3")
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "message_copied", thread_id: "t1", message_id: "m1" },
      { kind: "voice_started", thread_id: "t2" },
      { kind: "voice_started", thread_id: "t3" }
    ])
    expect(getCloud).toHaveBeenCalledTimes(2)
  })

  it("methods runStarted ... threadSwitched: each sends its event kind with its ids, value and props", async () => {
    useClock()
    const { fake, cloud, reporter } = setup()
    reporter.runStarted("t1")
    reporter.runEnded("t1")
    reporter.runStarted("t1")
    await vi.advanceTimersByTimeAsync(250)
    reporter.runStopped("t1")
    reporter.messageSent("t2", { messageId: "m1", chars: 12, attachments: 1 })
    reporter.messageSent("t2", { chars: 0, attachments: 2 })
    reporter.messageEdited("t1", { messageId: "m1", chars: 5 })
    reporter.messageRegenerated("t1", "m2")
    reporter.messageRegenerated("t1")
    reporter.errorShown("t1", { messageId: "m2", reason: "network" })
    reporter.errorShown("t2", { reason: "timeout" })
    reporter.suggestionsShown("t1", 3)
    reporter.suggestionClicked("t1")
    reporter.attachmentAdded("t1", { messageId: "m1", contentType: "image/png" })
    reporter.attachmentAdded("t1", {})
    reporter.attachmentFailed("t1", { contentType: "application/zip" })
    reporter.attachmentFailed("t1", { messageId: "m1", contentType: "" })
    reporter.voiceStarted("t1")
    reporter.speechStarted("t1", "m2")
    reporter.speechStarted("t1")
    reporter.branchSwitched("t1", "m2")
    reporter.messageCopied("t1", "m2")
    reporter.toolApproved("t1", "m2", "call-1")
    reporter.toolRejected("t1", "m2", "call-2")
    reporter.threadSwitched("t3")
    const events = await flushed(fake, cloud)
    expect(events).toEqual([
      // runStarted and runEnded send nothing themselves.
      { kind: "run_stopped", thread_id: "t1", value: 250 },
      { kind: "message_sent", thread_id: "t2", message_id: "m1", props: { chars: 12, attachments: 1 } },
      { kind: "message_sent", thread_id: "t2", props: { chars: 0, attachments: 2 } },
      { kind: "message_edited", thread_id: "t1", message_id: "m1", props: { chars: 5 } },
      { kind: "message_regenerated", thread_id: "t1", message_id: "m2" },
      { kind: "message_regenerated", thread_id: "t1" },
      { kind: "error_shown", thread_id: "t1", message_id: "m2", props: { reason: "network" } },
      { kind: "error_shown", thread_id: "t2", props: { reason: "timeout" } },
      { kind: "suggestions_shown", thread_id: "t1", value: 3 },
      { kind: "suggestion_clicked", thread_id: "t1" },
      { kind: "attachment_added", thread_id: "t1", message_id: "m1", props: { type: "image/png" } },
      { kind: "attachment_added", thread_id: "t1" },
      { kind: "attachment_failed", thread_id: "t1", props: { type: "application/zip" } },
      { kind: "attachment_failed", thread_id: "t1", message_id: "m1" },
      { kind: "voice_started", thread_id: "t1" },
      { kind: "speech_started", thread_id: "t1", message_id: "m2" },
      { kind: "speech_started", thread_id: "t1" },
      { kind: "branch_switched", thread_id: "t1", message_id: "m2" },
      { kind: "message_copied", thread_id: "t1", message_id: "m2" },
      { kind: "tool_approved", thread_id: "t1", message_id: "m2", props: { toolCallId: "call-1" } },
      { kind: "tool_rejected", thread_id: "t1", message_id: "m2", props: { toolCallId: "call-2" } },
      { kind: "thread_switched", thread_id: "t3" }
    ])
    // Every kind the reporter has is one the gateway takes (schema/Event.ts), and it uses them all.
    expect(new Set(events.map((event) => event.kind))).toEqual(new Set(EVENT_KINDS))
  })

  it("Ids resolved asynchronously: through resolveIds (threadId, messageId, { awaitThread }), after the call returns", async () => {
    const { calls, resolve } = remoteIds()
    const { fake, cloud, reporter } = setup(resolve)
    reporter.messageCopied("t1", "m2")
    reporter.suggestionClicked("t1")
    // Nothing is resolved nor tracked during the call itself.
    expect(calls).toEqual([])
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "message_copied", thread_id: "remote-t1", message_id: "remote-m2" },
      { kind: "suggestion_clicked", thread_id: "remote-t1" }
    ])
    expect(calls).toEqual([
      ["t1", "m2", { awaitThread: false }],
      ["t1", undefined, { awaitThread: false }]
    ])
  })

  it("Ids resolved asynchronously: without a resolver the ids given are sent as they are", async () => {
    const { fake, cloud, reporter } = setup()
    reporter.branchSwitched("thread-a", "message-b")
    reporter.branchSwitched("thread-a")
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "branch_switched", thread_id: "thread-a", message_id: "message-b" },
      { kind: "branch_switched", thread_id: "thread-a" }
    ])
  })

  it("Ids resolved asynchronously: only the resolved ids are sent (a run id too), and what the resolver leaves out is left out", async () => {
    const { fake, cloud, reporter } = setup((threadId) =>
      threadId === "known" ? { thread_id: "remote", run_id: "run-1" } : {}
    )
    reporter.speechStarted("known", "m1")
    reporter.speechStarted("unknown", "m1")
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "speech_started", thread_id: "remote", run_id: "run-1" },
      { kind: "speech_started" }
    ])
  })

  it("Ids resolved asynchronously: a resolver that throws, rejects or answers no object drops that event only, and nothing throws", async () => {
    const fake = new FakeFetch()
    const cloud = apiKeyClient(fake)
    const throwing = new CloudEngagementReporter(cloud, () => {
      throw new Error("no ids")
    })
    const rejecting = new CloudEngagementReporter(cloud, () => Promise.reject(new Error("no ids")))
    // As a resolver written in JavaScript might: null instead of ids.
    const nothing = new CloudEngagementReporter(cloud, () => JSON.parse("null"))
    expect(() => throwing.messageCopied("t1", "m1")).not.toThrow()
    rejecting.messageCopied("t1", "m1")
    nothing.messageCopied("t1", "m1")
    new CloudEngagementReporter(cloud).messageCopied("t1", "m1")
    // A client getter that throws loses the event too, quietly.
    new CloudEngagementReporter(() => {
      throw new Error("no client yet")
    }).messageCopied("t1", "m1")
    expect(await flushed(fake, cloud)).toEqual([{ kind: "message_copied", thread_id: "t1", message_id: "m1" }])
  })

  it("messageSent waits for the thread: its ids are resolved with awaitThread true, every other event's with false", async () => {
    // A resolver as an app with persistence writes it: a send waits for the remote thread, the rest read what exists.
    let created: (id: string) => void = () => undefined
    const remoteThread = new Promise<string>((resolve) => {
      created = resolve
    })
    let known: string | undefined
    const seen: Array<boolean> = []
    const { fake, cloud, reporter } = setup(async (_threadId, messageId, { awaitThread }) => {
      seen.push(awaitThread)
      const thread_id = awaitThread ? await remoteThread : known
      return { thread_id, message_id: messageId }
    })
    reporter.messageSent("local", { messageId: "m1", chars: 4, attachments: 0 })
    reporter.messageCopied("local", "m0")
    reporter.threadSwitched("local")
    await settle()
    expect(seen).toEqual([true, false, false])
    known = "remote-thread"
    created("remote-thread")
    expect(await flushed(fake, cloud)).toEqual([
      // The copy went out at once without a thread id; the switch to a thread not yet stored was dropped.
      { kind: "message_copied", message_id: "m0" },
      { kind: "message_sent", thread_id: "remote-thread", message_id: "m1", props: { chars: 4, attachments: 0 } }
    ])
  })

  it("messageSent: its value is the time since the last run ended (none before any run ended)", async () => {
    useClock()
    const { fake, cloud, reporter } = setup()
    reporter.messageSent("t1", { chars: 1, attachments: 0 })
    reporter.runStarted("t1")
    await vi.advanceTimersByTimeAsync(700)
    reporter.runEnded("t1")
    await vi.advanceTimersByTimeAsync(4_000)
    reporter.messageSent("t1", { chars: 2, attachments: 0 })
    // Measured at the call, not when the ids resolve; the next send measures from the same end.
    await vi.advanceTimersByTimeAsync(1_000)
    reporter.messageSent("t1", { chars: 3, attachments: 0 })
    // A stopped run is not an ended one: the value still counts from the last end.
    reporter.runStarted("t1")
    reporter.runStopped("t1")
    reporter.messageSent("t1", { chars: 4, attachments: 0 })
    // Each thread has its own last end.
    reporter.messageSent("t2", { chars: 5, attachments: 0 })
    // A clock set back gives 0, never a negative value.
    reporter.runEnded("t3")
    vi.setSystemTime(T0.getTime())
    reporter.messageSent("t3", { chars: 6, attachments: 0 })
    const sent = (await flushed(fake, cloud)).filter((event) => event.kind === "message_sent")
    expect(sent.map((event) => [event.thread_id, event.value])).toEqual([
      ["t1", undefined],
      ["t1", 4_000],
      ["t1", 5_000],
      ["t1", 5_000],
      ["t2", undefined],
      ["t3", 0]
    ])
  })

  it("runStopped once per run with the elapsed time", async () => {
    useClock()
    const { fake, cloud, reporter } = setup()
    // No run started: nothing.
    reporter.runStopped("t1")
    reporter.runStarted("t1")
    await vi.advanceTimersByTimeAsync(1_500)
    reporter.runStopped("t1")
    reporter.runStopped("t1")
    // An ended run cannot be stopped.
    reporter.runStarted("t1")
    reporter.runEnded("t1")
    reporter.runStopped("t1")
    // A new run starts a new clock (a second start restarts it).
    reporter.runStarted("t1")
    await vi.advanceTimersByTimeAsync(100)
    reporter.runStarted("t1")
    await vi.advanceTimersByTimeAsync(300)
    reporter.runStopped("t1")
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "run_stopped", thread_id: "t1", value: 1_500 },
      { kind: "run_stopped", thread_id: "t1", value: 300 }
    ])
  })

  it("errorShown once per run", async () => {
    const { fake, cloud, reporter } = setup()
    reporter.runStarted("t1")
    reporter.errorShown("t1", { messageId: "m1", reason: "error" })
    reporter.errorShown("t1", { messageId: "m1", reason: "error" })
    reporter.errorShown("t1", { reason: "another" })
    // Other threads have their own.
    reporter.errorShown("t2", { reason: "error" })
    // Ending the run does not allow another; starting the next one does.
    reporter.runEnded("t1")
    reporter.errorShown("t1", { reason: "late" })
    reporter.runStarted("t1")
    reporter.errorShown("t1", { reason: "timeout" })
    reporter.errorShown("t1", { reason: "timeout" })
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "error_shown", thread_id: "t1", message_id: "m1", props: { reason: "error" } },
      { kind: "error_shown", thread_id: "t2", props: { reason: "error" } },
      { kind: "error_shown", thread_id: "t1", props: { reason: "timeout" } }
    ])
  })

  it("suggestionsShown once per thread", async () => {
    const { fake, cloud, reporter } = setup()
    reporter.suggestionsShown("t1", 3)
    reporter.suggestionsShown("t1", 4)
    // New runs do not allow another list.
    reporter.runStarted("t1")
    reporter.runEnded("t1")
    reporter.suggestionsShown("t1", 2)
    reporter.suggestionsShown("t2", 1)
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "suggestions_shown", thread_id: "t1", value: 3 },
      { kind: "suggestions_shown", thread_id: "t2", value: 1 }
    ])
  })

  it("state kept for the 256 most recent threads", async () => {
    useClock()
    const { fake, cloud, reporter } = setup()
    for (let index = 0; index < 300; index++) {
      reporter.suggestionsShown(`s${index}`, 1)
      reporter.errorShown(`e${index}`, { reason: "x" })
      reporter.runEnded(`r${index}`)
    }
    await vi.advanceTimersByTimeAsync(1_000)
    // The oldest 44 threads are forgotten: their suggestions and errors count as new, their last run end is unknown.
    // (Newest first, so that nothing asked about is pushed out by the answers themselves.)
    for (const index of [299, 44, 43, 0]) {
      reporter.suggestionsShown(`s${index}`, 1)
      reporter.errorShown(`e${index}`, { reason: "x" })
      reporter.messageSent(`r${index}`, { chars: 1, attachments: 0 })
    }
    const events = await flushed(fake, cloud)
    expect(events).toHaveLength(608)
    expect(events.slice(600)).toEqual([
      { kind: "message_sent", thread_id: "r299", value: 1_000, props: { chars: 1, attachments: 0 } },
      { kind: "message_sent", thread_id: "r44", value: 1_000, props: { chars: 1, attachments: 0 } },
      { kind: "suggestions_shown", thread_id: "s43", value: 1 },
      { kind: "error_shown", thread_id: "e43", props: { reason: "x" } },
      { kind: "message_sent", thread_id: "r43", props: { chars: 1, attachments: 0 } },
      { kind: "suggestions_shown", thread_id: "s0", value: 1 },
      { kind: "error_shown", thread_id: "e0", props: { reason: "x" } },
      { kind: "message_sent", thread_id: "r0", props: { chars: 1, attachments: 0 } }
    ])

    // The most recently touched, not the first seen: a thread whose run ends again is kept over older ones.
    const second = setup()
    for (let index = 0; index < 256; index++) second.reporter.runEnded(`q${index}`)
    second.reporter.runEnded("q0")
    second.reporter.runEnded("q256")
    await vi.advanceTimersByTimeAsync(500)
    for (const thread of ["q0", "q1", "q2"]) second.reporter.messageSent(thread, { chars: 1, attachments: 0 })
    const sent = await flushed(second.fake, second.cloud)
    expect(sent.map((event) => [event.thread_id, event.value])).toEqual([
      ["q0", 500],
      ["q1", undefined],
      ["q2", 500]
    ])
  })

  it("state kept for the 256 most recent threads: a started run is kept until it ends or stops, however many threads ran since", async () => {
    useClock()
    const { fake, cloud, reporter } = setup()
    for (let index = 0; index < 300; index++) reporter.runStarted(`t${index}`)
    await vi.advanceTimersByTimeAsync(2_000)
    reporter.runStopped("t0")
    expect(await flushed(fake, cloud)).toEqual([{ kind: "run_stopped", thread_id: "t0", value: 2_000 }])
  })

  it("events go through the client's event buffer: normalized there, and dropped when telemetry or events are off", async () => {
    const fake = new FakeFetch()
    const cloud = apiKeyClient(fake)
    const reporter = new CloudEngagementReporter(cloud)
    // Ids over 48 characters and props over the limits are dropped by the buffer's normalization.
    reporter.messageCopied("t".repeat(49), "m1")
    reporter.errorShown("t1", { reason: "r".repeat(257) })
    reporter.suggestionsShown("t2", 2.5)
    await settle()
    cloud.telemetry.events = false
    reporter.voiceStarted("t1")
    await settle()
    cloud.telemetry.events = true
    cloud.telemetry.enabled = false
    reporter.voiceStarted("t1")
    await settle()
    cloud.telemetry.enabled = true
    expect(await flushed(fake, cloud)).toEqual([
      { kind: "message_copied", message_id: "m1" },
      { kind: "error_shown", thread_id: "t1" },
      { kind: "suggestions_shown", thread_id: "t2" }
    ])
    // Keys in the buffer's order: kind, thread_id, message_id, run_id, value, props.
    const fake2 = new FakeFetch()
    const cloud2 = apiKeyClient(fake2)
    new CloudEngagementReporter(cloud2, () => ({ run_id: "r1", message_id: "m1", thread_id: "t1" })).messageSent("t1", {
      chars: 1,
      attachments: 0
    })
    await flushed(fake2, cloud2)
    expect(fake2.to("/v1/events")[0]?.body).toBe(
      '{"events":[{"kind":"message_sent","thread_id":"t1","message_id":"m1","run_id":"r1","props":{"chars":1,"attachments":0}}]}'
    )
  })
})
