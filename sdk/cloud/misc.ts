import type { DownloadUrl, DownloadUrlRequest, UploadUrl } from "../../schema/File.js"
import type { RunReport } from "../../schema/Run.js"
import type { CreateScore, ScoreCreated } from "../../schema/Score.js"
import * as check from "../core/check.js"
import type { Transport } from "../core/request.js"
import { idOf } from "./shapes.js"

/** The body of POST /v1/runs (its wire names: docs/api-and-auth.md "Run reports, scores and events"). */
export type CloudRunReport = (typeof RunReport)["Encoded"]
export type CreateScoreBody = (typeof CreateScore)["Encoded"]
export type ScoreResponse = (typeof ScoreCreated)["Encoded"]
/** The upload answer; `key` is present only when the server sends it (docs/api-and-auth.md "Attachments"). */
export type GeneratePresignedUploadUrlResponse = Omit<(typeof UploadUrl)["Encoded"], "key"> & { readonly key?: string }
export type GeneratePresignedDownloadUrlResponse = (typeof DownloadUrl)["Encoded"]
export type GeneratePresignedDownloadUrlBody = (typeof DownloadUrlRequest)["Encoded"]

export const makeAuth = (transport: Transport) => ({
  tokens: {
    /** A 5-minute token for the API key's user and workspace (API key mode). */
    create: (): Promise<{ token: string }> =>
      transport.json("/auth/tokens", { method: "POST" }).then((body) => ({ token: idOf(body, "token") }))
  }
})

export const makeFiles = (transport: Transport) => ({
  generatePresignedUploadUrl: (body: { readonly filename: string }): Promise<GeneratePresignedUploadUrlResponse> =>
    transport.json("/files/attachments/generate-presigned-upload-url", { method: "POST", body }).then((answer) => {
      const object = check.object(answer, "body")
      const upload: {
        -readonly [K in keyof GeneratePresignedUploadUrlResponse]: GeneratePresignedUploadUrlResponse[K]
      } = {
        success: check.boolean(object.success, "success") as true,
        signedUrl: check.string(object.signedUrl, "signedUrl"),
        expiresAt: check.string(object.expiresAt, "expiresAt"),
        publicUrl: check.string(object.publicUrl, "publicUrl")
      }
      if (object.key !== undefined) upload.key = check.string(object.key, "key")
      return upload
    }),
  generatePresignedDownloadUrl: (
    body: GeneratePresignedDownloadUrlBody
  ): Promise<GeneratePresignedDownloadUrlResponse> =>
    transport.json("/files/attachments/generate-presigned-download-url", { method: "POST", body }).then((answer) => {
      const object = check.object(answer, "body")
      return {
        signedUrl: check.string(object.signedUrl, "signedUrl"),
        expiresAt: check.string(object.expiresAt, "expiresAt"),
        key: check.string(object.key, "key")
      }
    })
})

export const makeScores = (transport: Transport) => ({
  create: (body: CreateScoreBody): Promise<ScoreResponse> =>
    transport.json("/scores", { method: "POST", body }).then((answer) => {
      const object = check.object(answer, "body")
      const value = object.value === null ? null : check.number(object.value, "value")
      const stringValue = check.nullableString(object.string_value, "string_value")
      return {
        score_id: check.string(object.score_id, "score_id"),
        name: check.string(object.name, "name"),
        data_type: check.oneOf(object.data_type, ["numeric", "categorical", "boolean"], "data_type"),
        value,
        string_value: stringValue
      }
    })
})
