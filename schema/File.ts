/**
 * Attachments (docs/api-and-auth.md "Attachments", docs/decisions.md "Attachments"): a
 * presigned URL to PUT a file to, and one to GET it back. The responses keep
 * the camelCase names the wire gives them.
 */
import * as Schema from "effect/Schema"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

/** Accepted attachment types: file extension (lower case) to the Content-Type the upload must carry. */
export const ATTACHMENT_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
  txt: "text/plain",
  md: "text/markdown",
  csv: "text/csv",
  json: "application/json"
}

/** The extension of a file name, lower case, or "" when it has none. */
export const extensionOf = (filename: string): string => {
  const dot = filename.lastIndexOf(".")
  return dot < 0 ? "" : filename.slice(dot + 1).toLowerCase()
}

/** The Content-Type of an accepted file name, or undefined. */
export const attachmentType = (filename: string): string | undefined =>
  Object.hasOwn(ATTACHMENT_TYPES, extensionOf(filename)) ? ATTACHMENT_TYPES[extensionOf(filename)] : undefined

const ACCEPTED = [...new Set(Object.keys(ATTACHMENT_TYPES))].join(", ")

export const Filename = StorableString.pipe(
  Schema.minLength(1, { message: () => "filename must not be empty" }),
  Schema.maxLength(Limits.attachment.filenameMaxLength, {
    message: () => `filename is longer than ${Limits.attachment.filenameMaxLength} characters`
  }),
  Schema.filter((name) => attachmentType(name) !== undefined || `the file type is not accepted; accepted: ${ACCEPTED}`)
).annotations({ description: `A file name with an accepted extension (${ACCEPTED})` })

export class UploadUrlRequest extends Schema.Class<UploadUrlRequest>("UploadUrlRequest")({
  filename: Filename.annotations(exampleOf("photo.png"))
}) {}

export class UploadUrl extends Schema.Class<UploadUrl>("UploadUrl")({
  success: Schema.Literal(true),
  /** PUT the file here, with the Content-Type of its extension, before `expiresAt`. */
  signedUrl: Schema.String,
  expiresAt: Schema.Date,
  /** Names the file for a later download request (`{ url }`); not itself readable without a signature. */
  publicUrl: Schema.String,
  key: Schema.String
}) {}

const ByKey = Schema.Struct({
  key: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(Limits.attachment.keyMaxLength))
}).annotations({ examples: [{ key: ExampleIds.attachmentKey }] })
const ByUrl = Schema.Struct({
  url: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(Limits.attachment.urlMaxLength))
})

/** `{ key }` or `{ url }` (a `publicUrl` this service issued). */
export const DownloadUrlRequest = Schema.Union(ByKey, ByUrl).annotations({ identifier: "DownloadUrlRequest" })

export class DownloadUrl extends Schema.Class<DownloadUrl>("DownloadUrl")({
  signedUrl: Schema.String,
  expiresAt: Schema.Date,
  key: Schema.String
}) {}
