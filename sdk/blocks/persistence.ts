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

/** What CloudMessagePersistence needs of the client: `threads.messages` create, list and update. */
export interface MessagePersistenceCloud {
  readonly threads: {
    readonly messages: Pick<AssistantCloud["threads"]["messages"], "create" | "list" | "update">
  }
}

/** What createFormattedPersistence needs of a persistence (CloudMessagePersistence has it all). */
export interface MessagePersistenceLike {
  append(
    threadId: string,
    messageId: string,
    parentId: string | null,
    format: string,
    content: StoredContent
  ): Promise<void>
  load(threadId: string, format?: string): Promise<ReadonlyArray<StoredMessage>>
  isPersisted(messageId: string): boolean
  update?(threadId: string, messageId: string, format: string, content: StoredContent): Promise<void>
}

/** The result of createFormattedPersistence. */
export interface FormattedPersistence<TMessage> {
  append(threadId: string, item: FormattedMessageItem<TMessage>): Promise<void>
  /**
   * Present when the wrapped persistence has `update`. `messageId` is the
   * local id to look up in the id map; it defaults to the adapter's `getId`.
   */
  readonly update:
    | ((threadId: string, item: FormattedMessageItem<TMessage>, messageId?: string) => Promise<void>)
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

  /** `cloud` is the client, or a function giving the client to use at each call. */
  constructor(cloud: MessagePersistenceCloud | (() => MessagePersistenceCloud)) {
    this.#cloud = typeof cloud === "function" ? cloud : () => cloud
  }

  /**
   * Stores a message under its parent. `parentId` is a local id: while its
   * create is under way the append waits for it (and fails with it), once
   * stored its remote id is sent; an id the map does not know is sent as it
   * is (it may be a remote id already). A message already stored is sent
   * again with the same `external_id`: the gateway answers the same remote id
   * and takes the new content (an identical one writes nothing).
   */
  async append(
    threadId: string,
    messageId: string,
    parentId: string | null,
    format: string,
    content: StoredContent
  ): Promise<void> {
    const cloud = this.#cloud()
    const ids = this.#ids
    const current = ids.get(messageId)
    if (current instanceof Promise) {
      await current
      return
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
  async update(threadId: string, messageId: string, _format: string, content: StoredContent): Promise<void> {
    const cloud = this.#cloud()
    const remoteId = await this.getRemoteId(messageId)
    if (remoteId === undefined) {
      console.warn(`Skipping update for message ${messageId}: no remote id is mapped.`)
      return
    }
    await cloud.threads.messages.update(threadId, remoteId, { content })
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
  }
}

/**
 * Wraps a persistence with a format adapter: `append(threadId, { parentId,
 * message })` stores `adapter.encode(item)` under `adapter.getId(message)` in
 * the adapter's format; `update` exists when the wrapped persistence has one;
 * `load(threadId)` keeps the messages of the adapter's format (`aui/v0` and
 * `svc/v0` being one), decodes them, and reverses the persistence's order
 * (newest first) into oldest first.
 */
export const createFormattedPersistence = <TMessage, TStorageFormat extends StoredContent = StoredContent>(
  persistence: MessagePersistenceLike,
  adapter: MessageFormatAdapter<TMessage, TStorageFormat>
): FormattedPersistence<TMessage> => {
  // The one assumption of the wrapper: a stored message of the adapter's
  // format holds what its encode wrote (decode's parameter is read as that).
  const codec: MessageFormatAdapter<TMessage> = adapter
  const update = persistence.update
  return {
    append: async (threadId, item) => {
      const messageId = codec.getId(item.message)
      await persistence.append(threadId, messageId, item.parentId, codec.format, codec.encode(item))
    },
    update:
      update === undefined
        ? undefined
        : async (threadId, item, messageId = codec.getId(item.message)) => {
            await update.call(persistence, threadId, messageId, codec.format, codec.encode(item))
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
