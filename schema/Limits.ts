/**
 * Every numeric limit of the wire (docs/api-and-auth.md "REST API" and the
 * sections after it) and of docs/decisions.md, in one table. Schemas and
 * services read these; nothing else repeats a number.
 */
import type { Plan } from "./Plan.js"

export const Limits = {
  idMaxLength: 48,
  /** Nesting of JSON values (metadata, content): arrays and objects within each other. */
  jsonMaxDepth: 64,
  /** The dashboard (docs/dashboard.md): its tables, sign-in attempts, session lifetime. */
  dashboard: {
    rowsDefault: 50,
    rowsMax: 100,
    signInPerMinute: 10,
    sessionIdleHours: 12
  },
  thread: {
    titleMaxLength: 255,
    externalIdMaxLength: 255,
    metadataMaxKeys: 16,
    metadataKeyMaxLength: 64,
    metadataValueMaxLength: 512,
    listDefault: 20,
    listMax: 100
  },
  message: {
    contentMaxBytes: 64 * 1024,
    formatMaxLength: 64,
    /** A message's external_id (and parent_external_id), like a thread's. */
    externalIdMaxLength: 255,
    listDefault: 200,
    listMax: 200,
    deleteMax: 200
  },
  feedback: { commentMaxLength: 2_000 },
  run: {
    errorMaxLength: 2_048,
    errorCodeMaxLength: 64,
    tagsMax: 20,
    tagMaxLength: 64,
    environmentMaxLength: 64,
    releaseMaxLength: 255,
    /** attributes, serialized (UTF-8 bytes). */
    attributesMaxBytes: 16 * 1024,
    /** cost_details, serialized (UTF-8 bytes), like attributes. */
    costDetailsMaxBytes: 16 * 1024,
    /** A run's cost_usd at most, in US dollars: far above any model call, and sums of it stay finite. */
    costUsdMax: 1_000_000,
    /** steps, tool_calls and sampling_calls, each (also a tool call's sampling_calls and a step's tool_calls). */
    entriesMax: 1_000,
    /** output_text, tool arguments, tool results and step input (characters; serialized when not a string). */
    textMaxLength: 50_000,
    tokensMax: 100_000_000,
    /** model_id, provider, tool_name, tool_call_id. */
    nameMaxLength: 255,
    providerTypeMaxLength: 64,
    finishReasonMaxLength: 32,
    idempotencyKeyMaxLength: 255,
    listDefault: 50,
    listMax: 100
  },
  score: {
    nameMaxLength: 64,
    commentMaxLength: 2_000,
    stringValueMaxLength: 255,
    listDefault: 50,
    listMax: 200
  },
  event: {
    batchMax: 50,
    propsMaxBytes: 1024,
    propsKeyMaxLength: 64,
    propsStringMaxLength: 256,
    idMaxLength: 48,
    /** Per user, a minute (docs/api-and-auth.md "Run reports, scores and events"). */
    perMinute: 600
  },
  usage: { defaultDays: 30, maxDays: 366 },
  rate: {
    /** Per client address, a minute (docs/api-and-auth.md "Rate limits"). */
    anonymousCreatePerMinute: 30,
    anonymousRefreshPerMinute: 120
  },
  /** Svc-User-Id and Svc-Workspace-Id values. */
  identityHeaderMaxLength: 255,
  sdkClients: {
    /** Entries unseen this long drop off the list (docs/api-and-auth.md "Authentication and tenancy"). */
    ttlDays: 180,
    /** Distinct name/version pairs kept per project; past it only known ones are refreshed. */
    maxPerProject: 500
  },
  sdkHeader: { maxTokens: 8, tokenPartMaxLength: 64 },
  apiKey: { expiryPresetsDays: [7, 30, 90, 365] as const },
  auth: {
    /** Service-issued access tokens live 5 minutes (docs/api-and-auth.md "Service-issued tokens"). */
    accessTokenSeconds: 300,
    /** Anonymous refresh tokens: 30 days, extended to now + 30 days at each refresh. */
    refreshTokenDays: 30
  },
  project: { nameMaxLength: 100, testUserPrefixesMax: 10, testUserPrefixMaxLength: 64 },
  /** Thread titles (POST /v1/runs/stream, docs/decisions.md "Titles"). */
  title: {
    minWords: 2,
    maxWords: 12,
    /** Messages a title request may carry, and its body cap. */
    messagesMax: 200,
    bodyMaxBytes: 256 * 1024,
    /** Conversation text handed to the model (the start of it). */
    promptMaxChars: 8_000,
    /** Characters of each message the extractive generator reads (the start of it). */
    wordsSourceMaxChars: 2_000,
    /** Generated titles a UTC calendar month by plan; null: unlimited. */
    monthlyQuota: { hobby: 500, pro: 5_000, startup: null, enterprise: null } satisfies Record<Plan, number | null>
  },
  origins: { maxEntries: 32, maxLength: 255 },
  /** OTLP trace exports (POST /v1/traces, docs/decisions.md "Traces (OTLP/HTTP)"). */
  trace: {
    /** An export, before and after decompression (docs/traces.md "Traces (OpenTelemetry)"). */
    exportMaxBytes: 4 * 1024 * 1024,
    /** Spans kept per trace, counted across exports (docs/traces.md "Traces (OpenTelemetry)"). */
    spansPerTraceMax: 500,
    /** A span's attributes, serialized as JSON (UTF-8 bytes). */
    attributesMaxBytes: 16 * 1024,
    /** A span's events, all of them serialized as JSON (names, times and attributes). */
    eventsMaxBytes: 64 * 1024,
    /** A span's links, all of them serialized as JSON. */
    linksMaxBytes: 16 * 1024,
    /** A span's name, a scope's name and a scope's version, each (UTF-8 bytes). */
    nameMaxBytes: 1024,
    /** A span's status message (UTF-8 bytes): the run report's `error` is 2,048 characters. */
    statusMessageMaxBytes: 2048,
    /** A span's trace state (W3C tracestate carries at most 512 characters). */
    traceStateMaxBytes: 512,
    /** A resource's attributes, and a scope's, serialized as JSON (as a span's). */
    resourceMaxBytes: 16 * 1024,
    listDefault: 50,
    listMax: 100
  },
  /** Full-text search over threads and messages (GET /v1/projects/search, /v1/threads/search). */
  search: {
    /** The query, in characters. */
    queryMaxLength: 256,
    listDefault: 20,
    listMax: 100,
    /** The deepest `offset`: ranked pages past it cost more than they are worth. */
    offsetMax: 1_000
  },
  attachment: {
    /**
     * 25 MB (MiB, as every byte size here): the largest file a signed upload URL takes
     * (docs/api-and-auth.md "Attachments").
     */
    maxBytes: 25 * 1024 * 1024,
    /** Presigned upload and download URLs live 15 minutes (docs/api-and-auth.md "Attachments"). */
    urlSeconds: 15 * 60,
    /** The `filename` of an upload request, in characters. */
    filenameMaxLength: 255,
    /** The sanitized file name kept in the key, without its extension. */
    keyNameMaxLength: 100,
    /** A `key` or `url` in a download request, in characters. */
    keyMaxLength: 512,
    urlMaxLength: 2048
  },
  body: {
    /** Default cap on any JSON request body. */
    defaultMaxBytes: 1024 * 1024,
    /** Message bodies: 64 KB of content plus its envelope. */
    messageMaxBytes: 128 * 1024,
    /** Run reports: their own limits allow more than the default cap; this bounds the whole report. */
    runMaxBytes: 4 * 1024 * 1024,
    /**
     * Nesting of a whole JSON body: the values' own limit (`jsonMaxDepth`)
     * plus room for the deepest envelope (a run's steps, tool calls and
     * arguments). Deeper bodies are refused before they are parsed.
     */
    jsonMaxDepth: 80
  }
} as const
