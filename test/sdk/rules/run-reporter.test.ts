/**
 * docs/client-library.md "Building blocks" (CloudRunReporter: it deduplicates reports by key,
 * swallows delivery failures, releases the key only after a 429) and "Three modes"
 * (the telemetry configuration: enabled, release, environment, tags, beforeReport), over a real
 * AssistantCloud and a scripted fetch.
 */
import { AssistantCloud, type AssistantCloudTelemetryConfig, CloudRunReporter } from "svc-client"
import { describe, expect, it } from "vitest"
import { FakeFetch, json, jwt, type Sent, settle, text } from "./fakes.js"

const token = jwt(10 * 365 * 86_400)

const client = (fake: FakeFetch, telemetry?: boolean | AssistantCloudTelemetryConfig) =>
  new AssistantCloud(
    telemetry === undefined
      ? { baseUrl: "https://api.example.test", authToken: async () => token, fetch: fake.fetch }
      : { baseUrl: "https://api.example.test", authToken: async () => token, fetch: fake.fetch, telemetry }
  )

const created = () => json({ run_id: "run_1" })

/** The bodies of the POST /v1/runs sent so far. */
const reports = (fake: FakeFetch): Array<Record<string, unknown>> =>
  fake.to("/v1/runs").map((sent: Sent) => FakeFetch.json(sent) as Record<string, unknown>)

const run = { threadId: "thread_1", status: "completed" } as const

/** A fetch answer the test releases itself. */
const gate = () => {
  let open: (response: Response) => void = () => {}
  const answer = new Promise<Response>((resolve) => {
    open = resolve
  })
  return { answer: () => answer, open: (response: Response) => open(response) }
}

describe("Reporting: CloudRunReporter", () => {
  it("nothing when telemetry is disabled (read at each report)", async () => {
    for (const telemetry of [false, { enabled: false }, { enabled: false, release: "1.0.0" }] as const) {
      const fake = new FakeFetch(created)
      await new CloudRunReporter(client(fake, telemetry)).report(run, "k")
      expect(fake.sent, JSON.stringify(telemetry)).toHaveLength(0)
    }
    // Switched at run time; a disabled report claims no key.
    const fake = new FakeFetch(created)
    const cloud = client(fake)
    const reporter = new CloudRunReporter(cloud)
    cloud.telemetry.enabled = false
    await reporter.report(run, "k")
    cloud.telemetry.enabled = true
    await reporter.report(run, "k")
    expect(reports(fake)).toHaveLength(1)
    // Events off keeps run reports.
    const eventsOff = new FakeFetch(created)
    await new CloudRunReporter(client(eventsOff, { events: false })).report(run)
    expect(reports(eventsOff)).toHaveLength(1)
  })

  it("environment, release and tags from the telemetry config", async () => {
    const fake = new FakeFetch(created)
    const cloud = client(fake, { environment: "production", release: "1.2.3", tags: [" web ", "web", "beta"] })
    await new CloudRunReporter(cloud).report({ ...run, modelId: "gpt-4o-mini", usage: { promptTokens: 3 } })
    expect(reports(fake)).toEqual([
      {
        thread_id: "thread_1",
        status: "completed",
        model_id: "gpt-4o-mini",
        input_tokens: 3,
        environment: "production",
        release: "1.2.3",
        tags: ["web", "beta"]
      }
    ])
    // The config is read at each report, and its tags normalized again.
    cloud.telemetry = { ...cloud.telemetry, tags: ["  x ", "x", ""], environment: "staging" }
    await new CloudRunReporter(() => cloud).report(run)
    expect(reports(fake)[1]).toMatchObject({ environment: "staging", tags: ["x"] })
  })

  it("beforeReport runs last: it sees environment, release and tags, and what it answers is sent", async () => {
    const fake = new FakeFetch(created)
    const seen: Array<Record<string, unknown>> = []
    const cloud = client(fake, {
      environment: "production",
      release: "1.2.3",
      tags: ["web"],
      beforeReport: (report) => {
        seen.push({ ...report })
        const { release: _release, ...rest } = report
        return { ...rest, model_id: "redacted", tags: ["hooked"] }
      }
    })
    await new CloudRunReporter(cloud).report({ ...run, modelId: "secret-model", traceId: "A".repeat(32) })
    expect(seen).toEqual([
      {
        thread_id: "thread_1",
        status: "completed",
        model_id: "secret-model",
        trace_id: "a".repeat(32),
        environment: "production",
        release: "1.2.3",
        tags: ["web"]
      }
    ])
    expect(reports(fake)).toEqual([
      {
        thread_id: "thread_1",
        status: "completed",
        model_id: "redacted",
        trace_id: "a".repeat(32),
        environment: "production",
        tags: ["hooked"]
      }
    ])
    // An async hook is awaited.
    const later = new FakeFetch(created)
    await new CloudRunReporter(
      client(later, { beforeReport: async (report) => ({ ...report, model_id: "async" }) })
    ).report(run)
    expect(reports(later)).toEqual([{ thread_id: "thread_1", status: "completed", model_id: "async" }])
  })

  it("beforeReport null skips the send and frees the key", async () => {
    const fake = new FakeFetch(created)
    let veto = true
    const cloud = client(fake, { beforeReport: (report) => (veto ? null : report) })
    const reporter = new CloudRunReporter(cloud)
    await reporter.report(run, "t:m")
    expect(fake.sent).toHaveLength(0)
    veto = false
    await reporter.report(run, "t:m")
    await reporter.report(run, "t:m")
    expect(reports(fake)).toHaveLength(1)
  })

  it("beforeReport: a thrown error is ignored (not raised; nothing is sent, as the original client does, and the key is freed)", async () => {
    const hooks: ReadonlyArray<NonNullable<AssistantCloudTelemetryConfig["beforeReport"]>> = [
      () => {
        throw new Error("hook failed")
      },
      async () => Promise.reject(new Error("hook rejected")),
      // A hook that changes the report and then fails: neither version is sent.
      (report) => {
        report.model_id = "half-scrubbed"
        throw new Error("hook failed midway")
      }
    ]
    for (const beforeReport of hooks) {
      const fake = new FakeFetch(created)
      let failing = true
      const reporter = new CloudRunReporter(
        client(fake, { release: "9", beforeReport: (report) => (failing ? beforeReport(report) : report) })
      )
      await expect(reporter.report({ ...run, modelId: "m" }, "k")).resolves.toBeUndefined()
      expect(fake.sent).toHaveLength(0)
      failing = false
      await reporter.report({ ...run, modelId: "m" }, "k")
      expect(reports(fake)).toEqual([{ thread_id: "thread_1", status: "completed", model_id: "m", release: "9" }])
    }
  })

  it("the key is claimed before sending so concurrent duplicates drop", async () => {
    const pending = gate()
    const fake = new FakeFetch(created).answer(pending.answer)
    const reporter = new CloudRunReporter(client(fake))
    const first = reporter.report(run, "t:m")
    const duplicates = [reporter.report(run, "t:m"), reporter.report(run, "t:m")]
    await Promise.all(duplicates)
    await settle()
    // The duplicates resolved, and sent nothing, while the first is still waiting for its answer.
    expect(reports(fake)).toHaveLength(1)
    let firstDone = false
    void first.then(() => {
      firstDone = true
    })
    await settle()
    expect(firstDone).toBe(false)
    pending.open(created())
    await first
    await reporter.report(run, "t:m")
    expect(reports(fake)).toHaveLength(1)
    // Without a key, every report is sent; another key is another report.
    await reporter.report(run)
    await reporter.report(run)
    await reporter.report(run, "t:other")
    expect(reports(fake)).toHaveLength(4)
  })

  it("the key stays claimed after any attempt except a CloudAPIError with status 429", async () => {
    const failures: ReadonlyArray<[string, () => Response | Promise<Response>]> = [
      ["400", () => json({ error: "invalid_request", message: "bad report" }, { status: 400 })],
      ["408", () => text("timeout", 408)],
      ["500", () => text("boom", 500)],
      ["503", () => text("unavailable", 503)],
      ["a network failure", () => Promise.reject(new TypeError("fetch failed"))],
      ["an answer without run_id (CloudResponseError)", () => json({})]
    ]
    for (const [name, failure] of failures) {
      const fake = new FakeFetch(created).answer(failure)
      const reporter = new CloudRunReporter(client(fake))
      await reporter.report(run, "t:m")
      await reporter.report(run, "t:m")
      expect(fake.to("/v1/runs"), name).toHaveLength(1)
    }
  })

  it("a CloudAPIError with status 429 frees the key", async () => {
    const fake = new FakeFetch(created).answer(json({ error: "rate_limited" }, { status: 429 }))
    const reporter = new CloudRunReporter(client(fake))
    await reporter.report(run, "t:m")
    await reporter.report(run, "t:m")
    await reporter.report(run, "t:m")
    // The 429, the retry that succeeded, and nothing after it.
    expect(fake.to("/v1/runs")).toHaveLength(2)
  })

  it("all errors swallowed", async () => {
    const fake = new FakeFetch(() => text("boom", 500))
    const reporter = new CloudRunReporter(client(fake))
    await expect(reporter.report(run)).resolves.toBeUndefined()
    // A getter that throws, a failing token callback: still resolved.
    await expect(
      new CloudRunReporter(() => {
        throw new Error("no cloud yet")
      }).report(run)
    ).resolves.toBeUndefined()
    const noToken = new AssistantCloud({
      baseUrl: "https://api.example.test",
      authToken: async () => null,
      fetch: new FakeFetch().fetch
    })
    await expect(new CloudRunReporter(noToken).report(run, "k")).resolves.toBeUndefined()
  })

  it("CloudRunReporter(cloud | () => cloud): a getter is read at each report", async () => {
    const one = new FakeFetch(created)
    const two = new FakeFetch(created)
    let current = client(one)
    const reporter = new CloudRunReporter(() => current)
    await reporter.report(run, "a")
    current = client(two)
    await reporter.report(run, "b")
    expect(reports(one)).toHaveLength(1)
    expect(reports(two)).toHaveLength(1)
    // Keys are the reporter's own, whichever cloud sends.
    await reporter.report(run, "a")
    expect(reports(two)).toHaveLength(1)
  })
})
