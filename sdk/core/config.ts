import { AnonymousAuth, normalizeBaseUrl } from "./anonymous.js"
import { ApiKeyAuth, JwtAuth } from "./auth.js"
import { DEFAULT_BACKEND_URL } from "./defaults.js"
import { type Fetch, globalFetch, Transport } from "./request.js"
import { SdkRegistry } from "./sdkHeader.js"
import { type ResolvedTelemetry, resolveTelemetry, type TelemetryConfig } from "./telemetry.js"

export { DEFAULT_BACKEND_URL }

export const INVALID_CONFIGURATION = "Invalid configuration: Must provide authToken, apiKey, or anonymous configuration"

interface SharedConfig {
  /** Run reports and engagement events; true (the default), false, or the detailed settings. */
  readonly telemetry?: boolean | TelemetryConfig | undefined
  /** The fetch to call (ours: the original has none); the global fetch by default. */
  readonly fetch?: Fetch | undefined
}

/** The project frontend URL with the app's JWTs. */
export interface AssistantCloudJWTConfig extends SharedConfig {
  readonly baseUrl: string
  readonly authToken: () => Promise<string | null> | string | null
}

/** The backend with a project API key, acting as one user in one workspace. */
export interface AssistantCloudAPIKeyConfig extends SharedConfig {
  readonly apiKey: string
  readonly userId: string
  readonly workspaceId: string
  readonly baseUrl?: string | undefined
}

/** The project frontend URL with an anonymous session kept in localStorage. */
export interface AssistantCloudAnonymousConfig extends SharedConfig {
  readonly baseUrl: string
  readonly anonymous: true
}

export type AssistantCloudConfig = AssistantCloudJWTConfig | AssistantCloudAPIKeyConfig | AssistantCloudAnonymousConfig

export interface ResolvedConfig {
  readonly transport: Transport
  readonly telemetry: ResolvedTelemetry
  readonly sdk: SdkRegistry
}

/** The three arms in their order (docs/client-library.md "Three modes"): authToken, then apiKey, then anonymous. */
export const resolveConfig = (config: AssistantCloudConfig): ResolvedConfig => {
  const fields = config as Partial<AssistantCloudJWTConfig & AssistantCloudAPIKeyConfig & AssistantCloudAnonymousConfig>
  const fetch = fields.fetch ?? globalFetch
  const sdk = new SdkRegistry()
  const telemetry = resolveTelemetry(fields.telemetry)
  const base = (url: string | undefined) => normalizeBaseUrl(url ?? "")
  if (fields.authToken) {
    const baseUrl = base(fields.baseUrl)
    return { transport: new Transport(baseUrl, new JwtAuth(fields.authToken), sdk, fetch), telemetry, sdk }
  }
  if (fields.apiKey) {
    const baseUrl = base(fields.baseUrl ?? DEFAULT_BACKEND_URL)
    const auth = new ApiKeyAuth(fields.apiKey, fields.userId ?? "", fields.workspaceId ?? "")
    return { transport: new Transport(baseUrl, auth, sdk, fetch), telemetry, sdk }
  }
  if (fields.anonymous === true) {
    const baseUrl = base(fields.baseUrl)
    const auth = new AnonymousAuth(baseUrl, fetch, () => sdk.header())
    return { transport: new Transport(baseUrl, auth, sdk, fetch), telemetry, sdk }
  }
  throw new Error(INVALID_CONFIGURATION)
}
