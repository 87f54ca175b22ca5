/**
 * Message persistence (docs/client-library.md "Building blocks", docs/decisions.md
 * "Client building blocks (svc-client, issue 14)"): CloudMessagePersistence stores messages
 * under the app's own (local) ids, keeps the local-to-remote id map, makes a
 * child wait for its parent's remote id, and pages a thread's history;
 * createFormattedPersistence puts a format adapter's encode and decode on top.
 */
import type { MessageContent } from "../../schema/Common.js"
import { Limits } from "../../schema/Limits.js"
import type { AssistantCloud } from "../cloud/AssistantCloud.js"
import { sameFormat } from "../cloud/format.js"
import type { CloudMessage } from "../cloud/shapes.js"
import { CloudAPIError } from "../core/errors.js"

/** A message's content as stored: a JSON object (at most 64 KB serialized). */
export type StoredContent = (typeof MessageContent)["Type"]

/** What a format adapter reads back: the stored message's ids, format and content. */
export interface StoredMessage<TStorageFormat extends StoredContent = StoredContent> {
  readonly id: string
  readonly parent_id: string | null
  readonly format: string
  readonly content: TStorageFormat
}

/** A message with the (local) id of its parent, null for a root. */
export interface FormattedMessageItem<TMessage> {
  readonly parentId: string | null
  readonly message: TMessage
}

/**
 * Turns an app's messages into stored content of one format and back. The
 * members are methods, as in the original client (and assistant-ui's own
 * adapter type), so that the two are interchangeable.
 */
export interface MessageFormatAdapter<TMessage, TStorageFormat extends StoredContent = StoredContent> {
  /** The `format` of the stored messages, e.g. `ai-sdk/v6`. */
  readonly format: string
  encode(item: FormattedMessageItem<TMessage>): TStorageFormat
  decode(stored: StoredMessage<TStorageFormat>): FormattedMessageItem<TMessage>
  /** The message's local id (the key of the id map). */
  getId(message: TMessage): string
}

/** What CloudMessagePersistence needs of the client: `threads.messages` create, list, update and delete. */
export interface MessagePersistenceCloud {
  readonly threads: {
    readonly messages: Pick<AssistantCloud["threads"]["messages"], "create" | "list" | "update" | "delete">
  }
}

/**
 * The phase of a message's run, as assistant-ui passes it to `append` and `update`: `running`
 * while the answer streams, else how the run ended. The original client holds a run lease on
 * the server for a running message; this gateway has no run leases (docs/decisions.md
 * "assistant-ui as the cloud client (issue 26)"), so the phase is taken and nothing more is sent.
 */
export type CloudMessageRunPhase = "running" | "done" | "cancelled" | "error"

/** How the original reads a listed message's run lease (never given here: the gateway has none). */
export type CloudRunState =
  | { readonly status: "in-progress"; readonly staleInMs: number }
  | { readonly status: "stale" }

/** The original's options; `staleAfter` is for run leases, which this gateway does not have. */
export interface CloudMessagePersistenceOptions {
  readonly staleAfter?: number | undefined
}

/** What createFormattedPersistence needs of a persistence (CloudMessagePersistence has it all). */
export interface MessagePersistenceLike {
  append(
    threadId: string,
    messageId: string,
    parentId: string | null,
    format: string,
    content: StoredContent,
    run?: CloudMessageRunPhase
  ): Promise<void>
  load(threadId: string, format?: string): Promise<ReadonlyArray<StoredMessage>>
  isPersisted(messageId: string): boolean
  update?(
    threadId: string,
    messageId: string,
    format: string,
    content: StoredContent,
    run?: CloudMessageRunPhase
  ): Promise<void>
  delete?(threadId: string, messageIds: ReadonlyArray<string>): Promise<void>
}

/** The result of createFormattedPersistence. */
export interface FormattedPersistence<TMessage> {
  /** `run` (assistant-ui's run phase) goes to the wrapped persistence's append. */
  append(threadId: string, item: FormattedMessageItem<TMessage>, run?: CloudMessageRunPhase): Promise<void>
  /**
   * Present when the wrapped persistence has `update`. `messageId` is the
   * local id to look up in the id map; it defaults to the adapter's `getId`.
   */
  readonly update:
    | ((
        threadId: string,
        item: FormattedMessageItem<TMessage>,
        messageId?: string,
        run?: CloudMessageRunPhase
      ) => Promise<void>)
    | undefined
  /** Present when the wrapped persistence has `delete`: deletes the items' messages, by the adapter's `getId`. */
  readonly delete:
    | ((threadId: string, items: ReadonlyArray<FormattedMessageItem<TMessage>>) => Promise<void>)
    | undefined
  /** The thread's messages of the adapter's format, decoded, oldest first (the reverse of the persistence's load). */
  load(threadId: string): Promise<{ messages: Array<FormattedMessageItem<TMessage>> }>
  isPersisted(messageId: string): boolean
}

/** The largest page of the message list: load asks for it and reads a shorter page as the last. */
const pageSize = Limits.message.listMax

/** A local id sent as the message's `external_id` (the wire takes 1 to 255 characters; another is not sent). */
const externalIdOf = (messageId: string): string | undefined =>
  messageId.length > 0 && messageId.length <= Limits.message.externalIdMaxLength ? messageId : undefined

/** A local id's entry: the remote id, or the create still under way. */
type Entry = string | Promise<string>

/**
 * Appends, updates and loads a thread's messages, mapping the app's local
 * message ids to the server's. Concurrent appends are safe: a child whose
 * parent is still being created waits for the parent's remote id, and a
 * second append of an id under way waits for the first instead of storing the
 * message twice. Each message is sent with its local id as `external_id`, so
 * that appending a stored message again (an app storing a message while it
 * streams, then the finished one) replaces its content on the gateway instead
 * of storing a second message; the map itself lives in this object (call
 * `reset()` when switching threads).
 */
export class CloudMessagePersistence {
  readonly #cloud: () => MessagePersistenceCloud
  #ids = new Map<string, Entry>()
  /** The latest append waiting for each id's create under way (it alone sends its content after). */
  #waiting = new Map<string, object>()
  /** What each create under way sends (format and content, serialized). */
  readonly #sending = new WeakMap<Promise<string>, string>()

  /**
   * `cloud` is the client, or a function giving the client to use at each call. `options` is the
   * original's (assistant-ui passes `{ staleAfter }`); it concerns run leases, which the gateway
   * does not have.
   */
  constructor(
    cloud: MessagePersistenceCloud | (() => MessagePersistenceCloud),
    _options: CloudMessagePersistenceOptions = {}
  ) {
    this.#cloud = typeof cloud === "function" ? cloud : () => cloud
  }

  /**
   * Stores a message under its parent. `parentId` is a local id: while its
   * create is under way the append waits for it (and fails with it), once
   * stored its remote id is sent; an id the map does not know is sent as it
   * is (it may be a remote id already). A message already stored is sent
   * again with the same `external_id`: the gateway answers the same remote id
   * and takes the new content (an identical one writes nothing). An append of
   * an id whose create is under way waits for it (and fails with it); then,
   * unless a later append of the id came meanwhile, it sends its own content
   * again when that differs from what the create sent: an app that stores a
   * message as it starts streaming and again once finished gets the finished
   * one stored, however slow the first create was. `_run` is the message's run
   * phase (assistant-ui's); nothing of it is sent, the gateway having no run
   * leases.
   */
  async append(
    threadId: string,
    messageId: string,
    parentId: string | null,
    format: string,
    content: StoredContent,
    _run?: CloudMessageRunPhase
  ): Promise<void> {
    const cloud = this.#cloud()
    const ids = this.#ids
    const waiting = this.#waiting
    const sends = JSON.stringify([format, content])
    const current = ids.get(messageId)
    if (current instanceof Promise) {
      const turn = {}
      waiting.set(messageId, turn)
      await current
      // Reset meanwhile, or a later append of the id sends its own content.
      if (ids !== this.#ids || waiting.get(messageId) !== turn) return
      waiting.delete(messageId)
      if (this.#sending.get(current) === sends || ids.get(messageId) instanceof Promise) return
    }
    const parent = parentId ? ids.get(parentId) : undefined
    const create = async () => {
      const parent_id = parentId ? ((await parent) ?? parentId) : null
      const external_id = externalIdOf(messageId)
      const body =
        external_id === undefined ? { parent_id, format, content } : { parent_id, format, content, external_id }
      const { message_id } = await cloud.threads.messages.create(threadId, body)
      return message_id
    }
    const task = create()
    this.#sending.set(task, sends)
    ids.set(messageId, task)
    // After reset() the map is another one, and the answer fills nothing.
    try {
      const remoteId = await task
      if (ids.get(messageId) === task) ids.set(messageId, remoteId)
    } catch (error) {
      if (ids.get(messageId) === task) ids.delete(messageId)
      throw error
    }
  }

  /**
   * Replaces a stored message's content, after its create when that is under
   * way. A message with no remote id (never appended or loaded, its create
   * failed, or reset since) is skipped with a console warning.
   */
  async update(
    threadId: string,
    messageId: string,
    _format: string,
    content: StoredContent,
    _run?: CloudMessageRunPhase
  ): Promise<void> {
    const cloud = this.#cloud()
    const remoteId = await this.getRemoteId(messageId)
    if (remoteId === undefined) {
      console.warn(`Skipping update for message ${messageId}: no remote id is mapped.`)
      return
    }
    await cloud.threads.messages.update(threadId, remoteId, { content })
  }

  /**
   * Deletes the messages of these local ids (with their descendants, as the gateway does) and
   * forgets them; ids with no remote id are skipped, and a thread already gone (404) is no error.
   */
  async delete(threadId: string, messageIds: ReadonlyArray<string>): Promise<void> {
    const cloud = this.#cloud()
    const ids = this.#ids
    const remote = new Map<string, string>()
    for (const localId of messageIds) {
      const remoteId = await this.getRemoteId(localId)
      if (remoteId !== undefined) remote.set(localId, remoteId)
    }
    if (remote.size === 0) return
    const all = [...remote.values()]
    try {
      for (let start = 0; start < all.length; start += Limits.message.deleteMax)
        await cloud.threads.messages.delete(threadId, {
          message_ids: all.slice(start, start + Limits.message.deleteMax)
        })
    } catch (error) {
      if (!(error instanceof CloudAPIError && error.status === 404)) throw error
    }
    for (const [localId, remoteId] of remote) if (ids.get(localId) === remoteId) ids.delete(localId)
  }

  /**
   * Moves a stored message's id mapping to a new local id (assistant-ui renames a placeholder
   * once its runtime names the message); nothing when `from` is unmapped or `to` is mapped.
   */
  async rename(from: string, to: string): Promise<void> {
    const ids = this.#ids
    if (!ids.has(from) || ids.has(to)) return
    const remoteId = await this.getRemoteId(from)
    if (remoteId === undefined || ids !== this.#ids || ids.has(to)) return
    ids.delete(from)
    ids.set(to, remoteId)
  }

  /** Maps a local id to a remote id the caller knows (assistant-ui does for messages it read itself). */
  record(localId: string, remoteId: string): void {
    this.#ids.set(localId, remoteId)
  }

  /** Whether a run lease is held for the message: never, the gateway has no run leases. */
  hasOpenRun(_messageId: string): boolean {
    return false
  }

  /** A listed message's run state as the original reads its lease: none, the gateway has no run leases. */
  runStateOf(_run?: unknown, _sinceReadMs?: number): CloudRunState | undefined {
    return undefined
  }

  /** True once the message is appended (or its append is under way) or loaded. */
  isPersisted(messageId: string): boolean {
    return this.#ids.has(messageId)
  }

  /** The remote id, after the create when it is under way; undefined when there is none (or the create fails). */
  async getRemoteId(messageId: string): Promise<string | undefined> {
    const entry = this.#ids.get(messageId)
    return typeof entry === "string" || entry === undefined ? entry : entry.catch(() => undefined)
  }

  /** The remote id when it is known now; undefined while the create is under way. */
  getResolvedRemoteId(messageId: string): string | undefined {
    const entry = this.#ids.get(messageId)
    return typeof entry === "string" ? entry : undefined
  }

  /**
   * The thread's messages (of `format`, when given), newest first, as the
   * original's load gave them: its callers (createFormattedPersistence,
   * assistant-ui's history adapter) reverse them into oldest first, parents
   * before children. Pages of 200 are read with `order=desc&after=<last id>`
   * until a short page; rows already seen are dropped, and a page with nothing
   * new ends the walk (a server that cannot resolve the cursor replays an
   * earlier page). Each loaded id maps to itself unless the map has it already.
   */
  async load(threadId: string, format?: string): Promise<Array<CloudMessage>> {
    const cloud = this.#cloud()
    const ids = this.#ids
    const messages: Array<CloudMessage> = []
    const seen = new Set<string>()
    let after: string | undefined
    for (;;) {
      const page = (
        await cloud.threads.messages.list(threadId, {
          format: format || undefined,
          limit: pageSize,
          after,
          order: "desc"
        })
      ).messages
      const fresh = page.filter((message) => !seen.has(message.id))
      for (const message of fresh) seen.add(message.id)
      messages.push(...fresh)
      const last = page.at(-1)
      if (fresh.length === 0 || last === undefined || page.length < pageSize) break
      after = last.id
    }
    // The map of the call's start: after reset() it is no longer the one read.
    for (const { id } of messages) if (!ids.has(id)) ids.set(id, id)
    return messages
  }

  /** Forgets every id (when switching threads). Calls under way still settle, but fill nothing in the new map. */
  reset(): void {
    this.#ids = new Map()
    this.#waiting = new Map()
  }
}

/**
 * Wraps a persistence with a format adapter: `append(threadId, { parentId,
 * message })` stores `adapter.encode(item)` under `adapter.getId(message)` in
 * the adapter's format (with the run phase, when given); `update` and `delete`
 * exist when the wrapped persistence has them; `load(threadId)` keeps the
 * messages of the adapter's format (`aui/v0` and `svc/v0` being one), decodes
 * them, and reverses the persistence's order (newest first) into oldest first.
 */
export const createFormattedPersistence = <TMessage, TStorageFormat extends StoredContent = StoredContent>(
  persistence: MessagePersistenceLike,
  adapter: MessageFormatAdapter<TMessage, TStorageFormat>
): FormattedPersistence<TMessage> => {
  // The one assumption of the wrapper: a stored message of the adapter's
  // format holds what its encode wrote (decode's parameter is read as that).
  const codec: MessageFormatAdapter<TMessage> = adapter
  const update = persistence.update
  const remove = persistence.delete
  return {
    append: async (threadId, item, run) => {
      const messageId = codec.getId(item.message)
      await persistence.append(threadId, messageId, item.parentId, codec.format, codec.encode(item), run)
    },
    update:
      update === undefined
        ? undefined
        : async (threadId, item, messageId = codec.getId(item.message), run) => {
            await update.call(persistence, threadId, messageId, codec.format, codec.encode(item), run)
          },
    delete:
      remove === undefined
        ? undefined
        : async (threadId, items) => {
            await remove.call(
              persistence,
              threadId,
              items.map((item) => codec.getId(item.message))
            )
          },
    load: async (threadId) => {
      const format = codec.format
      const stored = await persistence.load(threadId, format)
      const messages = stored
        .filter((message) => sameFormat(message.format, format))
        .map(({ id, parent_id, content }) => codec.decode({ id, parent_id, format, content }))
      return { messages: messages.reverse() }
    },
    isPersisted: (messageId) => persistence.isPersisted(messageId)
  }
}
