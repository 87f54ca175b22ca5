import { Limits } from "../../schema/Limits.js"

/** A run report as it is about to be sent; what `beforeReport` sees and may change. */
export type ReportBody = Record<string, unknown>

/** The telemetry configuration (docs/client-library.md "Three modes"). */
export interface TelemetryConfig {
  /** false stops run reports and events (default true). */
  enabled?: boolean
  /** false keeps run reports but stops engagement events (default: as `enabled`). */
  events?: boolean
  /** Added to every run report. */
  release?: string
  /** Added to every run report. */
  environment?: string
  /** Trimmed, cut to 64 characters, duplicates removed, at most 20; an empty result is omitted. */
  tags?: ReadonlyArray<string>
  /** Runs last; null skips the send and frees the report key; a thrown error is ignored. */
  beforeReport?: (report: ReportBody) => ReportBody | null | Promise<ReportBody | null>
}

/** The client's `telemetry`: read at each call, so an app may switch it at run time. */
export interface ResolvedTelemetry {
  enabled: boolean
  events: boolean
  release?: string
  environment?: string
  tags?: ReadonlyArray<string>
  beforeReport?: TelemetryConfig["beforeReport"]
}

export const resolveTelemetry = (config: boolean | TelemetryConfig | undefined): ResolvedTelemetry => {
  if (config === undefined || typeof config === "boolean") {
    const enabled = config !== false
    return { enabled, events: enabled }
  }
  const enabled = config.enabled !== false
  const resolved: ResolvedTelemetry = { enabled, events: enabled && config.events !== false }
  if (config.release !== undefined) resolved.release = config.release
  if (config.environment !== undefined) resolved.environment = config.environment
  const tags = config.tags === undefined ? undefined : normalizeTags(config.tags)
  if (tags !== undefined) resolved.tags = tags
  if (config.beforeReport !== undefined) resolved.beforeReport = config.beforeReport
  return resolved
}

/** Tags trimmed, cut to 64 characters, empty and duplicates dropped, at most 20; undefined when none is left. */
export const normalizeTags = (tags: ReadonlyArray<unknown>): ReadonlyArray<string> | undefined => {
  const kept: Array<string> = []
  for (const tag of tags) {
    if (typeof tag !== "string") continue
    const cut = tag.trim().slice(0, Limits.run.tagMaxLength)
    if (cut === "" || kept.includes(cut)) continue
    kept.push(cut)
    if (kept.length === Limits.run.tagsMax) break
  }
  return kept.length === 0 ? undefined : kept
}
