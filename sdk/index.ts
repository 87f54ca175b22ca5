/**
 * svc-client: the client of the conversation gateway, in the promise style of
 * the original 0.2 client (same exported names and behaviour). The Effect
 * style is `svc-client/effect`.
 */
export { AssistantCloud } from "./cloud/AssistantCloud.js"
export type {
  CloudRunReport as AssistantCloudRunReport,
  CreateScoreBody,
  GeneratePresignedDownloadUrlBody,
  GeneratePresignedDownloadUrlResponse,
  GeneratePresignedUploadUrlResponse,
  ScoreResponse
} from "./cloud/misc.js"
export type { RunStreamBody, TextDeltaChunk } from "./cloud/runs.js"
export type { CloudMessage, CloudThread } from "./cloud/shapes.js"
export type {
  CreateMessageBody,
  CreateThreadBody,
  DeleteMessagesBody,
  FeedbackBody,
  MessageListParams,
  ThreadListParams,
  UpdateThreadBody
} from "./cloud/threads.js"
export { generateThreadTitle } from "./cloud/title.js"
export { readAnonymousRefreshToken } from "./core/anonymous.js"
export type {
  AssistantCloudAnonymousConfig,
  AssistantCloudAPIKeyConfig,
  AssistantCloudConfig,
  AssistantCloudJWTConfig
} from "./core/config.js"
export { CloudAPIError, CloudResponseError } from "./core/errors.js"
export type { CloudEvent as AssistantCloudEvent, CloudEvent, CloudEventKind } from "./core/events.js"
export type { Fetch } from "./core/request.js"
export type { SdkIdentity } from "./core/sdkHeader.js"
export type {
  ReportBody,
  ResolvedTelemetry,
  TelemetryConfig as AssistantCloudTelemetryConfig
} from "./core/telemetry.js"

// Building blocks (issue 14). Each block's exports go right below its own line.
// blocks: persistence

export {
  CloudMessagePersistence,
  type CloudMessagePersistenceOptions,
  type CloudMessageRunPhase,
  type CloudRunState,
  createFormattedPersistence,
  type FormattedMessageItem,
  type FormattedPersistence,
  type MessageFormatAdapter,
  type MessagePersistenceCloud,
  type MessagePersistenceLike,
  type StoredContent,
  type StoredMessage
} from "./blocks/persistence.js"

// blocks: run reports
export {
  type AssistantCloudRunReportToolCall,
  createRunReport,
  createRunTelemetryToolCall,
  deriveRunOutcome,
  describeRunError,
  extractRunTelemetryModelId,
  normalizeRunTelemetryUsage,
  type RunMessageTelemetry,
  type RunReportCostDetails,
  type RunReportInit,
  type RunReportOutcome,
  type RunReportStepInit,
  type RunTelemetryToolCallInit,
  type RunTelemetryUsage,
  type RunTelemetryUsageInit,
  truncateRunTelemetryText
} from "./blocks/runReport.js"
export { CloudRunReporter, type CloudRunReportInit } from "./blocks/runReporter.js"

// blocks: engagement

export type { EngagementEventIds, EngagementIdResolver } from "./blocks/engagement.js"
export { CloudEngagementReporter } from "./blocks/engagement.js"

// blocks: sampling

export type {
  McpSamplingHandler,
  McpSamplingRequest,
  McpSamplingResponse,
  McpSamplingUsage,
  SamplingCallData,
  SamplingCollector
} from "./blocks/sampling.js"
export { createSamplingCollector, wrapSamplingHandler } from "./blocks/sampling.js"
