import type { EngagementEvent } from "../../schema/Event.js"
import { Limits } from "../../schema/Limits.js"
import { discard, type Transport } from "./request.js"
import type { ResolvedTelemetry } from "./telemetry.js"

/** What `events.track` takes: a kind and the ids and figures it is about. */
export interface CloudEvent {
  readonly kind: EngagementEvent["kind"] | (string & {})
  readonly thread_id?: string | undefined
  readonly message_id?: string | undefined
  readonly run_id?: string | undefined
  readonly value?: number | undefined
  readonly props?: Readonly<Record<string, string | number | boolean | null>> | undefined
}

export type CloudEventKind = CloudEvent["kind"]

/** Flushed when this many are buffered. */
export const FLUSH_AT = 20
/** Flushed this long after the first buffered event. */
export const FLUSH_AFTER_MS = 2_000

const validId = (id: unknown): id is string =>
  typeof id === "string" && id.length >= 1 && id.length <= Limits.event.idMaxLength

const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length

/** Props kept whole or dropped whole (docs/api-and-auth.md "Run reports, scores and events"). */
const validProps = (props: unknown): props is Record<string, unknown> => {
  if (typeof props !== "object" || props === null || Array.isArray(props)) return false
  for (const [key, value] of Object.entries(props)) {
    if (key.length > Limits.event.propsKeyMaxLength) return false
    if (typeof value === "string") {
      if (value.length > Limits.event.propsStringMaxLength) return false
    } else if (typeof value === "number") {
      if (!Number.isFinite(value)) return false
    } else if (typeof value !== "boolean" && value !== null) return false
  }
  return utf8Bytes(JSON.stringify(props)) <= Limits.event.propsMaxBytes
}

/** The event as sent: keys in the order kind, thread_id, message_id, run_id, value, props. */
export const normalizeEvent = (event: CloudEvent): Record<string, unknown> => {
  const out: Record<string, unknown> = { kind: event.kind }
  if (validId(event.thread_id)) out.thread_id = event.thread_id
  if (validId(event.message_id)) out.message_id = event.message_id
  if (validId(event.run_id)) out.run_id = event.run_id
  if (typeof event.value === "number" && Number.isInteger(event.value) && event.value >= 0) out.value = event.value
  if (event.props !== undefined && validProps(event.props)) out.props = event.props
  return out
}

/**
 * The engagement event buffer: flushed at 20 events, 2,000 ms after the first
 * one, when the page hides or the document becomes hidden, and on dispose;
 * sent in batches of at most 50 with keepalive; failures ignored, no retry.
 */
export class EventBuffer {
  #buffer: Array<Record<string, unknown>> = []
  #timer: ReturnType<typeof setTimeout> | undefined
  #sending = false
  #listening = false

  constructor(
    private readonly transport: Transport,
    private readonly telemetry: () => ResolvedTelemetry
  ) {}

  readonly #onPageHide = (): void => {
    void this.flush()
  }

  readonly #onVisibility = (): void => {
    if (typeof document !== "undefined" && document.visibilityState === "hidden") void this.flush()
  }

  #enabled(): boolean {
    const telemetry = this.telemetry()
    return telemetry.enabled !== false && telemetry.events !== false
  }

  track(event: CloudEvent): void {
    if (!this.#enabled()) return
    this.#buffer.push(normalizeEvent(event))
    this.#listen()
    if (this.#buffer.length >= FLUSH_AT) void this.flush()
    else this.#timer ??= setTimeout(() => void this.flush(), FLUSH_AFTER_MS)
  }

  /** Sends what is buffered, 50 at a time; resolves when the buffer is empty. */
  async flush(): Promise<void> {
    this.#clearTimer()
    if (this.#sending) return
    if (!this.#enabled()) {
      this.#buffer = []
      this.#unlisten()
      return
    }
    this.#sending = true
    try {
      while (this.#buffer.length > 0) {
        const batch = this.#buffer.splice(0, Limits.event.batchMax)
        await this.transport
          .raw("/events", { method: "POST", body: { events: batch }, keepalive: true })
          .then(discard, () => undefined)
      }
    } finally {
      this.#sending = false
      this.#unlisten()
    }
  }

  dispose(): Promise<void> {
    this.#unlisten()
    this.#clearTimer()
    return this.flush()
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
  }

  #listen(): void {
    if (this.#listening || typeof window === "undefined" || typeof document === "undefined") return
    this.#listening = true
    window.addEventListener("pagehide", this.#onPageHide)
    document.addEventListener("visibilitychange", this.#onVisibility)
  }

  #unlisten(): void {
    if (!this.#listening) return
    this.#listening = false
    window.removeEventListener("pagehide", this.#onPageHide)
    document.removeEventListener("visibilitychange", this.#onVisibility)
  }
}
