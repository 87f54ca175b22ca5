/**
 * CloudRunReporter (docs/client-library.md "Building blocks", and "Three modes" for the
 * telemetry configuration): sends run reports the way an integration must. Nothing
 * while telemetry is off; the client's environment, release and tags on every
 * report, then `beforeReport` last; a keyed report claimed before it is sent,
 * so a duplicate (even a concurrent one) is dropped; the key freed again only
 * when nothing was sent or the gateway answered 429; every failure swallowed.
 */
import type { AssistantCloud } from "../cloud/AssistantCloud.js"
import type { CloudRunReport } from "../cloud/misc.js"
import { CloudAPIError } from "../core/errors.js"
import type { ReportBody, ResolvedTelemetry } from "../core/telemetry.js"
import { createRunReport, type RunReportInit } from "./runReport.js"

/** A report as `CloudRunReporter.report` takes it: the telemetry share comes from the client. */
export type CloudRunReportInit = Omit<RunReportInit, "telemetry">

export class CloudRunReporter {
  readonly #cloud: () => AssistantCloud
  /** Keys of reports sent or being sent. */
  readonly #claimed = new Set<string>()

  constructor(cloud: AssistantCloud | (() => AssistantCloud)) {
    this.#cloud = typeof cloud === "function" ? cloud : () => cloud
  }

  /**
   * Builds the report (`createRunReport` with the client's telemetry), runs
   * `beforeReport` and sends it. Resolves once done; never rejects. With a
   * `key`, a report already sent or in flight under that key is not sent again.
   */
  async report(init: CloudRunReportInit, key?: string): Promise<void> {
    let claimed = false
    let attempted = false
    try {
      const cloud = this.#cloud()
      const telemetry = cloud.telemetry
      if (!telemetry.enabled) return
      if (key !== undefined) {
        if (this.#claimed.has(key)) return
        this.#claimed.add(key)
        claimed = true
      }
      const report = await applyBeforeReport(telemetry, () => createRunReport({ ...init, telemetry }))
      if (report === null) return
      attempted = true
      await cloud.runs.report(report)
    } catch (error) {
      if (error instanceof CloudAPIError && error.status === 429) attempted = false
    } finally {
      if (claimed && !attempted && key !== undefined) this.#claimed.delete(key)
    }
  }
}

/**
 * The report after the hook: the hook's answer when it is a report, null when
 * it answers null (or anything that is not a report: nothing is sent). A hook
 * that throws or rejects is ignored as the original client ignores it: the
 * error goes no further and nothing is sent (the hook may be what keeps
 * personal data out of reports, so a failed one must not let the report
 * through), and the key is freed as for null.
 */
const applyBeforeReport = async (
  telemetry: ResolvedTelemetry,
  build: () => CloudRunReport
): Promise<CloudRunReport | null> => {
  const report = build()
  const hook = telemetry.beforeReport
  if (hook === undefined) return report
  try {
    const answer = await hook(report)
    return isRunReport(answer) ? answer : null
  } catch {
    return null
  }
}

const STATUSES: ReadonlyArray<unknown> = ["completed", "incomplete", "error"]

/** A report-shaped answer: an object with a thread id and a status (the gateway checks the rest). */
const isRunReport = (value: ReportBody | null | undefined): value is CloudRunReport =>
  typeof value === "object" && value !== null && typeof value.thread_id === "string" && STATUSES.includes(value.status)
