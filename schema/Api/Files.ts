import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadGateway, NotFound, PayloadTooLarge } from "../Errors.js"
import { DownloadUrl, DownloadUrlRequest, UploadUrl, UploadUrlRequest } from "../File.js"
import { Authenticated } from "./Security.js"

export class FilesGroup extends HttpApiGroup.make("files")
  .add(
    HttpApiEndpoint.post("uploadUrl", "/files/attachments/generate-presigned-upload-url")
      .setPayload(UploadUrlRequest)
      .addSuccess(UploadUrl)
      .annotateContext(
        OpenApi.annotations({
          summary: "Get an upload URL",
          description:
            "A presigned URL to PUT one attachment to (at most 25 MiB, with the Content-Type of its extension), valid 15 minutes."
        })
      )
  )
  .add(
    HttpApiEndpoint.post("downloadUrl", "/files/attachments/generate-presigned-download-url")
      .setPayload(DownloadUrlRequest)
      .addSuccess(DownloadUrl)
      .addError(NotFound)
      .addError(PayloadTooLarge)
      .addError(BadGateway)
      .annotateContext(
        OpenApi.annotations({
          summary: "Get a download URL",
          description:
            "A presigned URL to GET an uploaded attachment back, by its `key` or the `publicUrl` the upload answered; valid 15 minutes."
        })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "Attachments: presigned upload and download URLs") {}
