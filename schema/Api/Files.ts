import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadGateway, NotFound, PayloadTooLarge } from "../Errors.js"
import { DownloadUrl, DownloadUrlRequest, UploadUrl, UploadUrlRequest } from "../File.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { Authenticated } from "./Security.js"

export class FilesGroup extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.post("uploadUrl", "/files/attachments/generate-presigned-upload-url")
      .setPayload(UploadUrlRequest)
      .addSuccess(UploadUrl)
  )
  .add(
    HttpApiEndpoint.post("downloadUrl", "/files/attachments/generate-presigned-download-url")
      .setPayload(DownloadUrlRequest)
      .addSuccess(DownloadUrl)
      .addError(NotFound)
      .addError(PayloadTooLarge)
      .addError(BadGateway)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
