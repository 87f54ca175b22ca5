/**
 * Shared by the client library's gateway suites (gateway-promise*.test.ts,
 * gateway-effect*.test.ts): a real gateway with a local attachment store,
 * the three auth modes' configurations, an OTLP export to make a trace, an
 * in-memory localStorage, and polling for what the gateway writes off the
 * request path (the SDK client list).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { AssistantCloud, type AssistantCloudConfig, CloudAPIError } from "svc-client"
import { afterAll, expect } from "vitest"
import { exportOf, jsonSpan, postJson, traceIdOf } from "../protocols/otlp/otlp.js"
import { createProject, type Gateway, type StoreUnderTest, useGateway } from "../support/layers.js"

/** The public URL the gateway signs attachment URLs for; the tests reach the same paths on its own port. */
export const PUBLIC_URL = "https://gateway.example.test"

export type Mode = "apiKey" | "jwt" | "anonymous"
export const MODES: ReadonlyArray<Mode> = ["apiKey", "jwt", "anonymous"]

/** A gateway with attachments under a temporary BLOB_DIR, keeping what it logs at ERROR. */
export const useSdkGateway = (store: StoreUnderTest) => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-sdk-blobs-"))
  const errors: Array<string> = []
  const handle = useGateway(store, { BLOB_DIR: blobDir, PUBLIC_URL }, { errors })
  afterAll(() => rmSync(blobDir, { recursive: true, force: true }))
  return { handle, errors }
}

export interface Fixture {
  readonly gateway: Gateway
  readonly projectId: string
  readonly apiKey: string
  /** `<origin>/p/<project_id>`: the project's frontend base URL. */
  readonly frontend: string
  /** The trace exported with the API key (OTLP/JSON), with a model-call span in `threadId`'s thread. */
  readonly traceId: string
}

/** A project, and a trace in it whose model-call span names `threadOf()`'s thread. */
export const makeFixture = async (gateway: Gateway, name: string): Promise<Omit<Fixture, "traceId">> => {
  const project = await createProject(gateway, name)
  return {
    gateway,
    projectId: project.project_id,
    apiKey: project.api_key,
    frontend: `${gateway.baseUrl}/p/${project.project_id}`
  }
}

/** POST /v1/traces (OTLP/JSON, bearer API key): a root span and a GenAI chat span in `threadId`. */
export const exportTrace = async (gateway: Gateway, apiKey: string, trace: number, threadId: string) => {
  const root = jsonSpan({
    trace,
    span: 1,
    name: "invoke_agent",
    attributes: { "gen_ai.operation.name": "invoke_agent" }
  })
  const chat = jsonSpan({
    trace,
    span: 2,
    parent: 1,
    name: "chat gpt-4o-mini",
    durationMs: 900,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 21,
      "gen_ai.usage.output_tokens": 8,
      "gen_ai.conversation.id": threadId
    }
  })
  const reply = await postJson(gateway.baseUrl, apiKey, exportOf([root, chat], "sdk-suite"))
  expect(reply.status, reply.text).toBe(200)
  expect(reply.text).toBe("{}")
  return traceIdOf(trace)
}

/** The API key arm, acting as `userId` in `workspaceId`. */
export const apiKeyConfig = (fixture: Omit<Fixture, "traceId">, userId: string, workspaceId: string) =>
  ({ apiKey: fixture.apiKey, userId, workspaceId, baseUrl: fixture.gateway.baseUrl }) satisfies AssistantCloudConfig

/** The JWT arm on the frontend URL, its tokens minted by `mint` (the gateway's POST /v1/auth/tokens). */
export const jwtConfig = (fixture: Omit<Fixture, "traceId">, mint: () => Promise<string>) =>
  ({ baseUrl: fixture.frontend, authToken: mint }) satisfies AssistantCloudConfig

/** The anonymous arm on the frontend URL (a trailing slash, which the client removes). */
export const anonymousConfig = (fixture: Omit<Fixture, "traceId">) =>
  ({ baseUrl: `${fixture.frontend}/`, anonymous: true }) satisfies AssistantCloudConfig

/**
 * A client per mode on `fixture`: alice with the API key, jen's JWTs (minted
 * with the API key), an anonymous session; `extend` adds to each
 * configuration (telemetry, a recording fetch).
 */
export const clientsByMode = (
  fixture: Omit<Fixture, "traceId">,
  extend: (config: AssistantCloudConfig) => AssistantCloudConfig = (config) => config,
  workspaces: { readonly apiKey: string; readonly jwt: string } = { apiKey: "ws-a", jwt: "ws-j" }
): Record<Mode, AssistantCloud> => {
  const minter = new AssistantCloud(apiKeyConfig(fixture, "jen", workspaces.jwt))
  return {
    apiKey: new AssistantCloud(extend(apiKeyConfig(fixture, "alice", workspaces.apiKey))),
    jwt: new AssistantCloud(extend(jwtConfig(fixture, async () => (await minter.auth.tokens.create()).token))),
    anonymous: new AssistantCloud(extend(anonymousConfig(fixture)))
  }
}

/** An attachment URL the gateway signed for PUBLIC_URL, on the test's own port. */
export const localUrl = (gateway: Gateway, url: string): string => {
  expect(url.startsWith(`${PUBLIC_URL}/`), url).toBe(true)
  return `${gateway.baseUrl}${url.slice(PUBLIC_URL.length)}`
}

/** PUTs `text` as text/plain to a signed upload URL. */
export const putText = async (gateway: Gateway, uploadUrl: string, text: string) => {
  const put = await fetch(localUrl(gateway, uploadUrl), {
    method: "PUT",
    body: text,
    headers: { "content-type": "text/plain" }
  })
  expect(put.status, await put.text()).toBe(200)
}

/** GETs a file through a signed download URL, as text/plain. */
export const getText = async (gateway: Gateway, downloadUrl: string) => {
  const got = await fetch(localUrl(gateway, downloadUrl))
  expect(got.status).toBe(200)
  expect(got.headers.get("content-type") ?? "").toMatch(/^text\/plain/)
  return got.text()
}

/** `check` retried every 50 ms until it stops throwing (5 s at most): for writes off the request path. */
export const eventually = async <A>(check: () => Promise<A>, timeoutMs = 5_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    try {
      return await check()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
}

/** The project's SDK client list as stored (`sdk_clients`), as `name/version` tokens. */
export const sdkClientsOf = async (gateway: Gateway, projectId: string): Promise<Array<string>> =>
  (
    await gateway.sql<{ name: string; version: string }>(
      "SELECT name, version FROM sdk_clients WHERE project_id = $1 ORDER BY name, version",
      [projectId]
    )
  ).map((row) => `${row.name}/${row.version}`)

/** Waits until the project's SDK client list holds every token of `tokens`. */
export const expectSdkClients = (gateway: Gateway, projectId: string, tokens: ReadonlyArray<string>) =>
  eventually(async () => {
    expect(await sdkClientsOf(gateway, projectId)).toEqual(expect.arrayContaining([...tokens]))
  })

/** The events stored for a thread, oldest first. */
export const eventsOf = (gateway: Gateway, projectId: string, threadId: string) =>
  gateway.sql<{ kind: string; message_id: string | null; value: string | number | null; props: unknown }>(
    "SELECT kind, message_id, value, props FROM events WHERE project_id = $1 AND thread_id = $2 ORDER BY created_at, id",
    [projectId, threadId]
  )

/** A localStorage kept in memory, installed on globalThis for the life of `run` and removed afterwards. */
export const withMemoryLocalStorage = async <A>(run: (storage: Storage) => Promise<A>): Promise<A> => {
  const items = new Map<string, string>()
  const storage: Storage = {
    get length() {
      return items.size
    },
    key: (index) => [...items.keys()][index] ?? null,
    getItem: (key) => items.get(key) ?? null,
    setItem: (key, value) => {
      items.set(key, String(value))
    },
    removeItem: (key) => {
      items.delete(key)
    },
    clear: () => items.clear()
  }
  const had = Object.getOwnPropertyDescriptor(globalThis, "localStorage")
  Object.defineProperty(globalThis, "localStorage", { value: storage, configurable: true, writable: true })
  try {
    return await run(storage)
  } finally {
    if (had === undefined) Reflect.deleteProperty(globalThis, "localStorage")
    else Object.defineProperty(globalThis, "localStorage", had)
  }
}

/** Chat messages for the title assistant. */
export const titleMessages = (text: string) => [{ role: "user", content: [{ type: "text", text }] }]

/** A svc/v0 message content. */
export const content = (text: string, role = "user") => ({ role, content: [{ type: "text", text }] })

/** The ids of a list. */
export const idsOf = (rows: ReadonlyArray<{ readonly id: string }>) => rows.map((row) => row.id)

/** Today as the usage API names days (UTC). */
export const today = () => new Date().toISOString().slice(0, 10)

export { traceIdOf }

/** The failure of `promise`, which must be a CloudAPIError with this status (and code). */
export const apiError = async (promise: Promise<unknown>, status: number, code?: string) => {
  const error = await promise.then(
    () => expect.fail(`expected a CloudAPIError ${status}`),
    (error: unknown) => error
  )
  expect(error).toBeInstanceOf(CloudAPIError)
  expect(error).toMatchObject({ status, ...(code === undefined ? {} : { code }) })
  return error as CloudAPIError
}
