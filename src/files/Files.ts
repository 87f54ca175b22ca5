import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CallerShape } from "../../schema/Api/Security.js"
import { invalid, notFound, PayloadTooLarge } from "../../schema/Errors.js"
import { attachmentType, DownloadUrl, extensionOf, UploadUrl } from "../../schema/File.js"
import { Limits } from "../../schema/Limits.js"
import { BlobStore } from "../platform/blobs/BlobStore.js"
import { ulid } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { WorkspaceClaimsRepo } from "./WorkspaceClaimsRepo.js"

/**
 * A workspace id in a key: any string up to 255 characters, so its SHA-256
 * (base64url, 43 characters) rather than the id itself: fixed length, URL- and
 * path-safe, and the same for the same workspace.
 */
export const workspaceSegment = (workspaceId: string): string =>
  createHash("sha256").update(workspaceId).digest("base64url")

/**
 * The name kept in the key: the last path segment, accents folded, anything
 * but letters, digits, `.`, `_` and `-` turned into `_`, not starting with a
 * dot, at most 100 characters before the extension (lower-cased).
 */
export const sanitizeFilename = (filename: string): string => {
  const base = filename.split(/[/\\]/).pop() ?? ""
  const extension = extensionOf(base)
  const stem = base
    .slice(0, base.length - extension.length - 1)
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._-]+/, "")
    .slice(0, Limits.attachment.keyNameMaxLength)
  return `${stem === "" ? "file" : stem}.${extension}`
}

/** `{project}/{workspace sha-256}/{ulid}/{name}`: URL-safe as it is, no segment starting with a dot. */
const KEY =
  /^([A-Za-z0-9_-]{1,48})\/([A-Za-z0-9_-]{43})\/([0-9A-HJKMNP-TV-Z]{26})\/([A-Za-z0-9_-][A-Za-z0-9._-]{0,110})$/

export interface ParsedKey {
  readonly projectId: string
  readonly workspace: string
  readonly name: string
}

/** The parts of a key this service made, or undefined. */
export const parseKey = (key: string): ParsedKey | undefined => {
  const match = KEY.exec(key)
  if (!match?.[1] || !match[2] || !match[4] || attachmentType(match[4]) === undefined) return undefined
  return { projectId: match[1], workspace: match[2], name: match[4] }
}

/** Attachments: signed URLs to upload a file to, and to download it from, within the caller's workspace. */
export class Files extends Effect.Service<Files>()("svc/Files", {
  dependencies: [WorkspaceClaimsRepo.Default],
  effect: Effect.gen(function* () {
    const blobs = yield* BlobStore
    const claims = yield* WorkspaceClaimsRepo
    const seconds = Limits.attachment.urlSeconds

    const uploadUrl = fn("Files.uploadUrl")(function* (caller: CallerShape, filename: string) {
      const name = sanitizeFilename(filename)
      const contentType = attachmentType(name)
      if (contentType === undefined) return yield* Effect.fail(invalid("the file type is not accepted", "filename"))
      const key = `${caller.projectId}/${workspaceSegment(caller.workspaceId)}/${ulid()}/${name}`
      const signed = yield* blobs.presignUpload(key, contentType, seconds)
      return new UploadUrl({
        success: true,
        signedUrl: signed.url,
        expiresAt: signed.expiresAt,
        publicUrl: blobs.publicUrl(key),
        key
      })
    })

    const downloadUrl = fn("Files.downloadUrl")(function* (
      caller: CallerShape,
      request: { readonly key: string } | { readonly url: string }
    ) {
      const field = "key" in request ? "key" : "url"
      const key = "key" in request ? request.key : blobs.keyOfPublicUrl(request.url)
      const parsed = key === undefined ? undefined : parseKey(key)
      if (key === undefined || parsed === undefined) {
        return yield* Effect.fail(invalid(`${field} does not name an attachment of this service`, field))
      }
      if (parsed.projectId !== caller.projectId) return yield* Effect.fail(notFound("attachment"))
      // The caller's own workspace, or an anonymous one claimed into it.
      if (
        parsed.workspace !== workspaceSegment(caller.workspaceId) &&
        !(yield* claims.claimedInto(caller.projectId, parsed.workspace, caller.workspaceId))
      ) {
        return yield* Effect.fail(notFound("attachment"))
      }
      const stored = yield* blobs.stat(key)
      if (Option.isNone(stored)) return yield* Effect.fail(notFound("attachment"))
      if (stored.value.size > Limits.attachment.maxBytes) {
        return yield* Effect.fail(
          new PayloadTooLarge({ message: `the attachment is larger than ${Limits.attachment.maxBytes} bytes` })
        )
      }
      const signed = yield* blobs.presignDownload(key, seconds)
      return new DownloadUrl({ signedUrl: signed.url, expiresAt: signed.expiresAt, key })
    })

    return { uploadUrl, downloadUrl } as const
  })
}) {}
