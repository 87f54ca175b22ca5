/**
 * Engagement events (docs/api-and-auth.md "Run reports, scores and events") and the telemetry
 * configuration; the client's event buffer (docs/client-library.md "Three modes").
 */
import { AssistantCloud, type CloudEvent } from "svc-client"
import { afterEach, describe, expect, it, vi } from "vitest"
import { FakeFetch, installBrowser, json, jwt, restoreGlobals, type Sent, settle, useClock } from "./fakes.js"

afterEach(() => {
  vi.useRealTimers()
  restoreGlobals()
})

const token = jwt(10 * 365 * 86_400)

const client = (fake: FakeFetch, telemetry?: ConstructorParameters<typeof AssistantCloud>[0]["telemetry"]) =>
  new AssistantCloud(
    telemetry === undefined
      ? { baseUrl: "https://api.example.test", authToken: async () => token, fetch: fake.fetch }
      : { baseUrl: "https://api.example.test", authToken: async () => token, fetch: fake.fetch, telemetry }
  )

/** The events of each POST /v1/events, in order. */
const batches = (fake: FakeFetch): Array<Array<Record<string, unknown>>> =>
  fake.to("/v1/events").map((sent: Sent) => (FakeFetch.json(sent) as { events: Array<Record<string, unknown>> }).events)

const track = (cloud: AssistantCloud, count: number, from = 0) => {
  for (let index = from; index < from + count; index++) cloud.events.track({ kind: "message_copied", value: index })
}

describe("Part 6: engagement events", () => {
  it("Disabled: with telemetry or events disabled, track does nothing", async () => {
    useClock()
    for (const telemetry of [false, { enabled: false }, { events: false }, { enabled: false, events: true }] as const) {
      const browser = installBrowser()
      const fake = new FakeFetch()
      const cloud = client(fake, telemetry)
      track(cloud, 25)
      await vi.advanceTimersByTimeAsync(5_000)
      await cloud.events.dispose()
      expect(fake.sent, JSON.stringify(telemetry)).toHaveLength(0)
      expect(browser.window.added).toEqual([])
      restoreGlobals()
    }
  })

  it("Disabled: telemetry.enabled and telemetry.events are read at each call", async () => {
    const fake = new FakeFetch()
    const cloud = client(fake)
    cloud.telemetry.events = false
    track(cloud, 1)
    cloud.telemetry.events = true
    cloud.telemetry.enabled = false
    track(cloud, 1)
    cloud.telemetry.enabled = true
    track(cloud, 1, 2)
    await cloud.events.dispose()
    expect(batches(fake)).toEqual([[{ kind: "message_copied", value: 2 }]])
  })

  it("Disabled: a pending buffer is dropped at flush when telemetry is switched off meanwhile", async () => {
    useClock()
    const fake = new FakeFetch()
    const cloud = client(fake)
    track(cloud, 5)
    cloud.telemetry.events = false
    await vi.advanceTimersByTimeAsync(2_000)
    cloud.telemetry.events = true
    await cloud.events.dispose()
    expect(fake.sent).toHaveLength(0)
  })

  it("Buffering: track normalizes the event and adds it to a buffer (nothing is sent at once)", async () => {
    useClock()
    const fake = new FakeFetch()
    const cloud = client(fake)
    cloud.events.track({ kind: "message_copied", thread_id: "", message_id: "m1", props: { n: Number.NaN } })
    await settle()
    expect(fake.sent).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(2_000)
    expect(batches(fake)).toEqual([[{ kind: "message_copied", message_id: "m1" }]])
  })

  it("Flush triggers: 20 buffered events are sent at once", async () => {
    useClock()
    const fake = new FakeFetch()
    const cloud = client(fake)
    track(cloud, 19)
    await settle()
    expect(fake.sent).toHaveLength(0)
    track(cloud, 1, 19)
    await settle()
    expect(batches(fake).map((batch) => batch.length)).toEqual([20])
  })

  it("Flush triggers: 2,000 ms after the first buffered event; later events do not push it back", async () => {
    useClock()
    const fake = new FakeFetch()
    const cloud = client(fake)
    track(cloud, 1)
    await vi.advanceTimersByTimeAsync(1_500)
    track(cloud, 1, 1)
    await vi.advanceTimersByTimeAsync(499)
    expect(fake.sent).toHaveLength(0)
    await vi.advanceTimersByTimeAsync(1)
    expect(batches(fake)).toEqual([
      [
        { kind: "message_copied", value: 0 },
        { kind: "message_copied", value: 1 }
      ]
    ])
  })

  it("Flush triggers: page hide", async () => {
    useClock()
    const { window } = installBrowser()
    const fake = new FakeFetch()
    track(client(fake), 3)
    window.fire("pagehide")
    await settle()
    expect(batches(fake).map((batch) => batch.length)).toEqual([3])
  })

  it("Flush triggers: the document becoming hidden (not visible)", async () => {
    useClock()
    const { document } = installBrowser()
    const fake = new FakeFetch()
    track(client(fake), 3)
    document.fire("visibilitychange")
    await settle()
    expect(fake.sent).toHaveLength(0)
    document.visibilityState = "hidden"
    document.fire("visibilitychange")
    await settle()
    expect(batches(fake).map((batch) => batch.length)).toEqual([3])
  })

  it("Flush triggers: dispose() flushes, clears the timer and removes the listeners", async () => {
    useClock()
    const { window, document } = installBrowser()
    const fake = new FakeFetch()
    const cloud = client(fake)
    track(cloud, 2)
    await cloud.events.dispose()
    expect(batches(fake).map((batch) => batch.length)).toEqual([2])
    expect([window.count("pagehide"), document.count("visibilitychange")]).toEqual([0, 0])
    expect(vi.getTimerCount()).toBe(0)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(fake.sent).toHaveLength(1)
  })

  it("Batch size: at most 50 events per request (120 events go out as 20, 50, 50)", async () => {
    useClock()
    let release: () => void = () => {}
    const fake: FakeFetch = new FakeFetch((sent) =>
      sent.path === "/v1/events" && fake.sent.length === 1
        ? new Promise<Response>((resolve) => (release = () => resolve(new Response(null, { status: 204 }))))
        : new Response(null, { status: 204 })
    )
    const cloud = client(fake)
    track(cloud, 120)
    await settle()
    release()
    await settle()
    await vi.advanceTimersByTimeAsync(2_000)
    expect(batches(fake).map((batch) => batch.length)).toEqual([20, 50, 50])
    expect(
      batches(fake)
        .flat()
        .map((event) => event.value)
    ).toEqual([...Array(120).keys()])
  })

  it("Transport: POST /v1/events with { events }, the only client call with keepalive", async () => {
    const fake = new FakeFetch()
    const cloud = client(fake)
    await cloud.threads.delete("t")
    track(cloud, 1)
    await cloud.events.dispose()
    expect(fake.sent.map((sent) => [sent.method, sent.path, sent.keepalive])).toEqual([
      ["DELETE", "/v1/threads/t", undefined],
      ["POST", "/v1/events", true]
    ])
    expect(FakeFetch.json(fake.sent[1])).toEqual({ events: [{ kind: "message_copied", value: 0 }] })
  })

  it("Failure: delivery failures are ignored and never raised, with no retry", async () => {
    useClock()
    const failures = [
      () => json({ error: "internal" }, { status: 500 }),
      () => json({ error: "rate_limited" }, { status: 429, headers: { "Retry-After": "60" } }),
      () => Promise.reject(new TypeError("fetch failed"))
    ]
    for (const failure of failures) {
      const fake = new FakeFetch(failure)
      const cloud = client(fake)
      expect(() => track(cloud, 20)).not.toThrow()
      await settle()
      await expect(cloud.events.dispose()).resolves.toBeUndefined()
      await vi.advanceTimersByTimeAsync(120_000)
      expect(fake.sent).toHaveLength(1)
    }
    const refused = new FakeFetch()
    const noToken = new AssistantCloud({ baseUrl: "https://a.test", authToken: async () => null, fetch: refused.fetch })
    track(noToken, 1)
    await expect(noToken.events.dispose()).resolves.toBeUndefined()
  })

  it("Invalid ids: an empty id or one over 48 characters is dropped", async () => {
    const fake = new FakeFetch()
    const cloud = client(fake)
    const id48 = "x".repeat(48)
    cloud.events.track({ kind: "message_copied", thread_id: "", message_id: "y".repeat(49), run_id: "r" })
    cloud.events.track({ kind: "message_copied", thread_id: id48, message_id: "m", run_id: "" })
    await cloud.events.dispose()
    expect(batches(fake)).toEqual([
      [
        { kind: "message_copied", run_id: "r" },
        { kind: "message_copied", thread_id: id48, message_id: "m" }
      ]
    ])
  })

  it("Invalid props: invalid or oversized props are dropped whole, the event stays", async () => {
    const fake = new FakeFetch()
    const cloud = client(fake)
    // JSON of 1,024 bytes exactly is kept; one byte more is not.
    const atLimit = { a: "a".repeat(256), b: "b".repeat(256), c: "c".repeat(256), d: "d".repeat(227) }
    const overLimit = { a: "a".repeat(256), b: "b".repeat(256), c: "c".repeat(256), d: "d".repeat(228) }
    expect([atLimit, overLimit].map((props) => Buffer.byteLength(JSON.stringify(props)))).toEqual([1024, 1025])
    const invalid: ReadonlyArray<Record<string, unknown>> = [
      overLimit,
      { ok: "fine", long: "s".repeat(257) },
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { nested: { a: 1 } },
      { list: [1, 2] },
      { ["k".repeat(65)]: 1 },
      // 5 strings of 250 two-byte characters: each under 256 characters, 2,500 UTF-8 bytes in all.
      Object.fromEntries([1, 2, 3, 4, 5].map((n) => [`k${n}`, "é".repeat(250)]))
    ]
    for (const props of invalid)
      cloud.events.track({ kind: "message_copied", thread_id: "t", props: props as CloudEvent["props"] })
    const valid = { s: "s".repeat(256), n: -1.5, b: false, z: null }
    cloud.events.track({ kind: "message_copied", props: atLimit })
    cloud.events.track({ kind: "message_copied", props: valid })
    await cloud.events.dispose()
    expect(batches(fake)).toEqual([
      [
        ...invalid.map(() => ({ kind: "message_copied", thread_id: "t" })),
        { kind: "message_copied", props: atLimit },
        { kind: "message_copied", props: valid }
      ]
    ])
  })

  it("Rate: a 429 from the events route is one more ignored failure", async () => {
    const fake = new FakeFetch(() => json({ error: "rate_limited" }, { status: 429, headers: { "Retry-After": "1" } }))
    const cloud = client(fake)
    track(cloud, 1)
    await cloud.events.dispose()
    track(cloud, 1, 1)
    await cloud.events.dispose()
    expect(batches(fake)).toEqual([[{ kind: "message_copied", value: 0 }], [{ kind: "message_copied", value: 1 }]])
  })
})

describe("the client library: events", () => {
  it("normalization: keys in the order kind, thread_id, message_id, run_id, value, props; value only a non-negative integer", async () => {
    const fake = new FakeFetch()
    const cloud = client(fake)
    cloud.events.track({
      props: { a: 1 },
      value: 3,
      run_id: "r",
      message_id: "m",
      thread_id: "t",
      kind: "message_copied"
    })
    for (const value of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      cloud.events.track({ kind: "run_started", value })
    cloud.events.track({ kind: "run_started", value: 0 })
    await cloud.events.dispose()
    const [batch] = batches(fake)
    expect(Object.keys(batch?.[0] ?? {})).toEqual(["kind", "thread_id", "message_id", "run_id", "value", "props"])
    expect(batch?.slice(1)).toEqual([...Array(4).fill({ kind: "run_started" }), { kind: "run_started", value: 0 }])
  })

  it("in a browser, the first track adds pagehide and visibilitychange listeners, removed once the buffer drains", async () => {
    useClock()
    const { window, document } = installBrowser()
    const fake = new FakeFetch()
    const cloud = client(fake)
    track(cloud, 3)
    expect(window.added).toEqual(["pagehide"])
    expect(document.added).toEqual(["visibilitychange"])
    await vi.advanceTimersByTimeAsync(2_000)
    expect([window.count("pagehide"), document.count("visibilitychange")]).toEqual([0, 0])
    expect([window.removed, document.removed]).toEqual([["pagehide"], ["visibilitychange"]])
    track(cloud, 1)
    expect([window.count("pagehide"), document.count("visibilitychange")]).toEqual([1, 1])
    await cloud.events.dispose()
  })

  it("outside a browser (no window or document), events are buffered and sent all the same", async () => {
    useClock()
    const fake = new FakeFetch()
    track(client(fake), 1)
    await vi.advanceTimersByTimeAsync(2_000)
    expect(batches(fake)).toHaveLength(1)
  })
})

describe("Part 1: telemetry configuration", () => {
  it("enabled defaults to true; omitting telemetry equals true; false turns events off", () => {
    const fake = new FakeFetch()
    expect(client(fake).telemetry).toMatchObject({ enabled: true, events: true })
    expect(client(fake, true).telemetry).toMatchObject({ enabled: true, events: true })
    expect(client(fake, {}).telemetry).toMatchObject({ enabled: true, events: true })
    expect(client(fake, false).telemetry).toMatchObject({ enabled: false, events: false })
    expect(client(fake, { enabled: false }).telemetry).toMatchObject({ enabled: false, events: false })
  })

  it("events defaults to true when telemetry is enabled; false keeps run reports but stops events", () => {
    const fake = new FakeFetch()
    expect(client(fake, { events: false }).telemetry).toMatchObject({ enabled: true, events: false })
    expect(client(fake, { enabled: true, events: true }).telemetry).toMatchObject({ enabled: true, events: true })
  })

  it("release and environment are kept when given, omitted otherwise", () => {
    const fake = new FakeFetch()
    const given = client(fake, { release: "1.2.3", environment: "staging" }).telemetry
    expect([given.release, given.environment]).toEqual(["1.2.3", "staging"])
    const omitted = client(fake, {}).telemetry
    expect(["release" in omitted, "environment" in omitted]).toEqual([false, false])
  })

  it("tags: each trimmed, cut to 64 characters, duplicates removed, at most 20 kept; an empty result is omitted", () => {
    const fake = new FakeFetch()
    const long = "t".repeat(70)
    const tags = [" a ", "a", long, `${"t".repeat(64)}x`, "", "   ", ...Array.from({ length: 30 }, (_, n) => `n${n}`)]
    expect(client(fake, { tags }).telemetry.tags).toEqual([
      "a",
      "t".repeat(64),
      ...Array.from({ length: 18 }, (_, n) => `n${n}`)
    ])
    expect("tags" in client(fake, { tags: ["", "  "] }).telemetry).toBe(false)
    expect("tags" in client(fake, { tags: [] }).telemetry).toBe(false)
  })
})
