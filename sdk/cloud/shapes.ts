import type * as Schema from "effect/Schema"
import type { Message } from "../../schema/Message.js"
import type { Thread } from "../../schema/Thread.js"
import * as check from "../core/check.js"

/** A thread as the client returns it: timestamps as Dates, a null title as "". */
export type CloudThread = Omit<Schema.Struct.Type<typeof Thread.fields>, "title"> & { readonly title: string }

/** A message as the client returns it: timestamps as Dates. */
export type CloudMessage = Schema.Struct.Type<typeof Message.fields>

export const threadOf = (value: unknown, path: string): CloudThread => {
  const body = check.object(value, path)
  const at = (key: string) => check.present(body, key, path)
  const title = check.nullableString(at("title"), `${path}.title`)
  return {
    id: check.string(at("id"), `${path}.id`),
    project_id: check.string(at("project_id"), `${path}.project_id`),
    workspace_id: check.string(at("workspace_id"), `${path}.workspace_id`),
    created_at: check.timestamp(at("created_at"), `${path}.created_at`),
    updated_at: check.timestamp(at("updated_at"), `${path}.updated_at`),
    title: title ?? "",
    last_message_at: check.timestamp(at("last_message_at"), `${path}.last_message_at`),
    is_archived: check.boolean(at("is_archived"), `${path}.is_archived`),
    external_id: check.nullableString(at("external_id"), `${path}.external_id`),
    metadata: at("metadata")
  }
}

export const messageOf = (value: unknown, path: string): CloudMessage => {
  const body = check.object(value, path)
  const at = (key: string) => check.present(body, key, path)
  return {
    id: check.string(at("id"), `${path}.id`),
    parent_id: check.nullableString(at("parent_id"), `${path}.parent_id`),
    height: check.integer(at("height"), `${path}.height`),
    created_at: check.timestamp(at("created_at"), `${path}.created_at`),
    updated_at: check.timestamp(at("updated_at"), `${path}.updated_at`),
    format: check.string(at("format"), `${path}.format`),
    content: check.object(at("content"), `${path}.content`),
    // Sent by this gateway; absent from servers that predate it.
    external_id: Object.hasOwn(body, "external_id")
      ? check.nullableString(body.external_id, `${path}.external_id`)
      : null
  }
}

/** `{ <key>: [items] }`, each item read by `item`. */
export const listOf = <A>(
  value: unknown,
  key: string,
  itemPath: string,
  item: (value: unknown, path: string) => A
): ReadonlyArray<A> =>
  check.array(check.object(value, "body")[key], key).map((entry, index) => item(entry, `${itemPath}[${index}]`))

/** An object with a string `key`. */
export const idOf = (value: unknown, key: string): string => check.string(check.object(value, "body")[key], key)
