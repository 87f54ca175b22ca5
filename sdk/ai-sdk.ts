/**
 * svc-client/ai-sdk: AI SDK message storage and run telemetry helpers
 * (`aiSDKV6FormatAdapter`, `extractAISDKRunTelemetry`). The entry point exists
 * so that imports resolve; its contents come with the building blocks (issue 14).
 */
export {}
