/**
 * svc-client/telemetry: the OpenTelemetry exporter, span processor and trace
 * metadata helpers. The entry point exists so that imports resolve; its
 * contents come with the building blocks (issue 14).
 */
export {}
