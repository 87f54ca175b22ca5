import type { AssistantCloud } from "../cloud/AssistantCloud.js"
import type { CloudEvent, CloudEventKind } from "../core/events.js"

/** The ids an engagement event is filed under, as the service knows them. */
export type EngagementEventIds = Pick<CloudEvent, "thread_id" | "message_id" | "run_id">

/**
 * Maps an integration's own thread and message ids to the service's. Only a
 * sent message passes `awaitThread: true` (the send is what may create the
 * remote thread, so the resolver may wait for it); every other event reads
 * ids that exist already. A thrown error or a rejection drops the event.
 */
export type EngagementIdResolver = (
  threadId: string,
  messageId: string | undefined,
  options: { readonly awaitThread: boolean }
) => EngagementEventIds | Promise<EngagementEventIds>

/** How many threads the per-thread state (last run end, error shown, suggestions shown) is kept for. */
const REMEMBERED_THREADS = 256

/** The ids as given: the thread, and the message when there is one. */
const sameIds: EngagementIdResolver = (threadId, messageId) =>
  messageId === undefined ? { thread_id: threadId } : { thread_id: threadId, message_id: messageId }

/** A map that keeps its most recently written `REMEMBERED_THREADS` keys (a write moves a key last). */
class Recent<V> {
  readonly #entries = new Map<string, V>()

  get(key: string): V | undefined {
    return this.#entries.get(key)
  }

  has(key: string): boolean {
    return this.#entries.has(key)
  }

  set(key: string, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size <= REMEMBERED_THREADS) return
    for (const oldest of this.#entries.keys()) {
      this.#entries.delete(oldest)
      return
    }
  }

  delete(key: string): void {
    this.#entries.delete(key)
  }
}

/** Milliseconds from `start` to now, never negative (a clock set back). */
const elapsedSince = (start: number): number => Math.max(0, Date.now() - start)

const stringField = (object: object, key: string): string | undefined => {
  const value: unknown = Reflect.get(object, key)
  return typeof value === "string" ? value : undefined
}

/** The id fields of a resolver's answer (nothing else of it), or undefined when it is no object. */
const idsOf = (answer: unknown): EngagementEventIds | undefined =>
  typeof answer === "object" && answer !== null
    ? {
        thread_id: stringField(answer, "thread_id"),
        message_id: stringField(answer, "message_id"),
        run_id: stringField(answer, "run_id")
      }
    : undefined

/**
 * Engagement events from what a chat interface observes, sent through the
 * client's event buffer (so disabled telemetry or events drop them there, and
 * they are normalized there). Ids are resolved asynchronously by
 * `resolveIds` (by default the ids given are the service's). It keeps the
 * state the events need: the start of each running run (until it ends or is
 * stopped), and for the 256 most recently touched threads each the end of its
 * last run, whether the current run showed an error and whether suggestions
 * were shown. No method throws or returns anything.
 */
export class CloudEngagementReporter {
  readonly #cloud: () => AssistantCloud
  readonly #resolveIds: EngagementIdResolver
  /** Running runs by thread: kept until the run ends or stops, however many threads ran since. */
  readonly #runStartedAt = new Map<string, number>()
  readonly #runEndedAt = new Recent<number>()
  readonly #errorShown = new Recent<true>()
  readonly #suggestionsShown = new Recent<true>()

  constructor(cloud: AssistantCloud | (() => AssistantCloud), resolveIds: EngagementIdResolver = sameIds) {
    this.#cloud = typeof cloud === "function" ? cloud : () => cloud
    this.#resolveIds = resolveIds
  }

  /** A run began in the thread: starts its clock and allows one more error event. */
  runStarted(threadId: string): void {
    this.#runStartedAt.set(threadId, Date.now())
    this.#errorShown.delete(threadId)
  }

  /** The thread's run finished: the next sent message measures from now. */
  runEnded(threadId: string): void {
    this.#runStartedAt.delete(threadId)
    this.#runEndedAt.set(threadId, Date.now())
  }

  /** `run_stopped`, once per started run, its value the milliseconds the run had been going. */
  runStopped(threadId: string): void {
    const startedAt = this.#runStartedAt.get(threadId)
    if (startedAt === undefined) return
    this.#runStartedAt.delete(threadId)
    this.#send("run_stopped", threadId, undefined, { value: elapsedSince(startedAt) })
  }

  /**
   * `message_sent` with `{ chars, attachments }`, its value the milliseconds
   * since the thread's last run ended (none when unknown); its ids are
   * resolved with `awaitThread: true`.
   */
  messageSent(
    threadId: string,
    init: { readonly messageId?: string | undefined; readonly chars: number; readonly attachments: number }
  ): void {
    const endedAt = this.#runEndedAt.get(threadId)
    this.#send(
      "message_sent",
      threadId,
      init.messageId,
      {
        value: endedAt === undefined ? undefined : elapsedSince(endedAt),
        props: { chars: init.chars, attachments: init.attachments }
      },
      true
    )
  }

  /** `message_edited` with `{ chars }`. */
  messageEdited(threadId: string, init: { readonly messageId: string; readonly chars: number }): void {
    this.#send("message_edited", threadId, init.messageId, { props: { chars: init.chars } })
  }

  messageRegenerated(threadId: string, messageId?: string): void {
    this.#send("message_regenerated", threadId, messageId)
  }

  /** `error_shown` with `{ reason }`, once per run of the thread (the first one shown). */
  errorShown(threadId: string, init: { readonly messageId?: string | undefined; readonly reason: string }): void {
    if (this.#errorShown.has(threadId)) return
    this.#errorShown.set(threadId, true)
    this.#send("error_shown", threadId, init.messageId, { props: { reason: init.reason } })
  }

  /** `suggestions_shown`, its value the number of suggestions, once per thread. */
  suggestionsShown(threadId: string, count: number): void {
    if (this.#suggestionsShown.has(threadId)) return
    this.#suggestionsShown.set(threadId, true)
    this.#send("suggestions_shown", threadId, undefined, { value: count })
  }

  suggestionClicked(threadId: string): void {
    this.#send("suggestion_clicked", threadId)
  }

  /** `attachment_added`, with `{ type }` when a content type is given. */
  attachmentAdded(
    threadId: string,
    init: { readonly messageId?: string | undefined; readonly contentType?: string | undefined }
  ): void {
    this.#send("attachment_added", threadId, init.messageId, typeProps(init.contentType))
  }

  /** `attachment_failed`, with `{ type }` when a content type is given. */
  attachmentFailed(
    threadId: string,
    init: { readonly messageId?: string | undefined; readonly contentType?: string | undefined }
  ): void {
    this.#send("attachment_failed", threadId, init.messageId, typeProps(init.contentType))
  }

  voiceStarted(threadId: string): void {
    this.#send("voice_started", threadId)
  }

  speechStarted(threadId: string, messageId?: string): void {
    this.#send("speech_started", threadId, messageId)
  }

  branchSwitched(threadId: string, messageId?: string): void {
    this.#send("branch_switched", threadId, messageId)
  }

  messageCopied(threadId: string, messageId?: string): void {
    this.#send("message_copied", threadId, messageId)
  }

  /** `tool_approved` with `{ toolCallId }`. */
  toolApproved(threadId: string, messageId: string, toolCallId: string): void {
    this.#send("tool_approved", threadId, messageId, { props: { toolCallId } })
  }

  /** `tool_rejected` with `{ toolCallId }`. */
  toolRejected(threadId: string, messageId: string, toolCallId: string): void {
    this.#send("tool_rejected", threadId, messageId, { props: { toolCallId } })
  }

  /** `thread_switched`, only when the thread resolves to a service id (a thread not stored yet sends nothing). */
  threadSwitched(threadId: string): void {
    this.#send("thread_switched", threadId)
  }

  /** Resolves the ids after the current call returns, then tracks; any failure drops the event quietly. */
  #send(
    kind: CloudEventKind,
    threadId: string,
    messageId?: string,
    figures: Pick<CloudEvent, "value" | "props"> = {},
    awaitThread = false
  ): void {
    void Promise.resolve()
      .then(() => this.#resolveIds(threadId, messageId, { awaitThread }))
      .then((answer) => {
        const ids = idsOf(answer)
        if (ids === undefined) return
        if (kind === "thread_switched" && !ids.thread_id) return
        this.#cloud().events.track({ kind, ...ids, ...figures })
      })
      .catch(() => undefined)
  }
}

const typeProps = (contentType: string | undefined): Pick<CloudEvent, "props"> =>
  contentType ? { props: { type: contentType } } : {}
