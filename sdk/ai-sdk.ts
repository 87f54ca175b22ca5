/**
 * svc-client/ai-sdk: storing AI SDK `UIMessage`s (`aiSDKV6FormatAdapter`, for
 * `createFormattedPersistence`) and reading a run report out of them
 * (`extractAISDKRunTelemetry`, for `CloudRunReporter` / `createRunReport`).
 * The `ai` package (v6, or v7 with the same message shape) is an optional
 * peer, used for types only: this entry loads without it.
 */
export { type AISDKStorageFormat, aiSDKV6FormatAdapter } from "./aiSdk/format.js"
export { type AISDKMessageLike, extractAISDKRunTelemetry } from "./aiSdk/telemetry.js"
