/**
 * Where the API key mode (and the telemetry entry's exporter) goes without a
 * baseUrl: the gateway's default address (PORT 8787). A module of its own so
 * that `svc-client/telemetry` takes this constant without the core chunk.
 */
export const DEFAULT_BACKEND_URL = "http://localhost:8787"
