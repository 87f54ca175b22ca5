/**
 * svc-client/effect: the client as an Effect service. Its methods are made
 * from the server's HttpApi groups in schema/ (HttpApiClient), so they take
 * and give the contract's types, and fail with CloudAPIError,
 * CloudResponseError, a ParseError for a refused argument, or a RequestError.
 */

export type {
  AssistantCloudAnonymousConfig,
  AssistantCloudAPIKeyConfig,
  AssistantCloudConfig,
  AssistantCloudJWTConfig
} from "./core/config.js"
export { CloudAPIError, CloudResponseError } from "./core/errors.js"
export type { CloudEvent } from "./core/events.js"
export type { SdkIdentity } from "./core/sdkHeader.js"
export { ClientApi } from "./effect/Api.js"
export { SvcClient, SvcClientConfig, type SvcClientGroups, type SvcClientService } from "./effect/Client.js"
export type { SvcClientError } from "./effect/Errors.js"
