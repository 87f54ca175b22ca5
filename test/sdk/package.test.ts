/**
 * The package as users get it: `npm pack` in sdk/ (which builds through
 * `prepack`), installed into an empty folder, then imported in Node and
 * against a running gateway, bundled for a browser, and type-checked by a
 * consumer. Tests elsewhere import the sources; this one is the tarball.
 */
import { execFile, execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { promisify } from "node:util"
import * as esbuild from "esbuild"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createProject, pglite, useGateway } from "../support/layers.js"
import { root } from "../support/process.js"

const sdk = path.join(root, "sdk")
const consumer = fs.mkdtempSync(path.join(os.tmpdir(), "svc-client-consumer-"))
afterAll(() => fs.rmSync(consumer, { recursive: true, force: true }))

const npm = (args: ReadonlyArray<string>, cwd: string) =>
  execFileSync("npm", [...args], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 })

/** A module script in the consumer; asynchronous, as the gateway it calls runs in this process. */
const node = async (script: string, env: Record<string, string> = {}) =>
  (
    await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      cwd: consumer,
      encoding: "utf8",
      env: { ...process.env, ...env },
      timeout: 60_000
    })
  ).stdout

const sdkVersion = (JSON.parse(fs.readFileSync(path.join(sdk, "package.json"), "utf8")) as { version: string }).version

/** The optional OpenTelemetry peers `svc-client/telemetry` imports, at the versions the repository has installed. */
const telemetryPeers = [
  "@opentelemetry/api",
  "@opentelemetry/sdk-trace-base",
  "@opentelemetry/exporter-trace-otlp-http"
].map(
  (name) =>
    `${name}@${(JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string }).version}`
)

describe("the svc-client package", () => {
  const gateway = useGateway(pglite)
  let tarball = ""

  beforeAll(() => {
    const packed = JSON.parse(npm(["pack", "--json", "--pack-destination", consumer], sdk)) as Array<{
      filename: string
      files: Array<{ path: string }>
    }>
    const [first] = packed
    if (first === undefined) throw new Error("npm pack packed nothing")
    tarball = path.join(consumer, first.filename)
    fs.writeFileSync(
      path.join(consumer, "package.json"),
      JSON.stringify({ name: "consumer", version: "1.0.0", private: true, type: "module" })
    )
    // An app using ./telemetry installs its optional peers beside the package.
    npm(["install", "--prefer-offline", "--no-audit", "--no-fund", tarball, ...telemetryPeers], consumer)
  }, 180_000)

  it("packs the built entries, their types and the README, and no sources", () => {
    const listing = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n")
    for (const file of [
      "package/package.json",
      "package/README.md",
      "package/dist/index.js",
      "package/dist/effect.js",
      "package/dist/ai-sdk.js",
      "package/dist/telemetry.js",
      "package/dist/types/sdk/index.d.ts",
      "package/dist/types/sdk/effect.d.ts",
      "package/dist/types/schema/Thread.d.ts"
    ])
      expect(listing).toContain(file)
    expect(listing.filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts"))).toEqual([])
  })

  it("imports in Node, with the exported names, and talks to a gateway through both entries", async () => {
    const project = await createProject(gateway.current)
    const out = await node(
      `
      import * as main from "svc-client"
      import * as fx from "svc-client/effect"
      import * as aiSdk from "svc-client/ai-sdk"
      import * as telemetry from "svc-client/telemetry"
      import * as Effect from "effect/Effect"
      const config = { apiKey: process.env.KEY, userId: "u1", workspaceId: "w1", baseUrl: process.env.BASE }
      const cloud = new main.AssistantCloud(config)
      const { thread_id } = await cloud.threads.create({ last_message_at: new Date(), title: "Packed" })
      const listed = await Effect.runPromise(
        Effect.scoped(Effect.flatMap(fx.SvcClient, (client) => client.threads.list())).pipe(
          Effect.provide(fx.SvcClient.layer(config))
        )
      )
      const failure = await cloud.threads.get("missing").catch((error) => error)
      console.log(JSON.stringify({
        main: Object.keys(main).sort(),
        effect: Object.keys(fx).sort(),
        aiSdk: Object.keys(aiSdk).sort(),
        telemetry: Object.keys(telemetry).sort(),
        stockExporter: telemetry.createAssistantCloudTraceExporter({ apiKey: "sk_x", baseUrl: process.env.BASE })
          instanceof (await import("@opentelemetry/exporter-trace-otlp-http")).OTLPTraceExporter,
        ids: listed.threads.map((thread) => thread.id),
        created: thread_id,
        sameErrorClass: failure instanceof fx.CloudAPIError && failure instanceof main.CloudAPIError,
        status: failure.status
      }))
      `,
      { KEY: project.api_key, BASE: gateway.current.baseUrl }
    )
    const result = JSON.parse(out.trim().split("\n").at(-1) ?? "{}")
    // Exactly the main entry's exports in the table of docs/client-library.md "Client library (svc-client)".
    expect(result.main).toEqual(
      [
        "AssistantCloud",
        "CloudAPIError",
        "CloudResponseError",
        "CloudRunReporter",
        "CloudEngagementReporter",
        "CloudMessagePersistence",
        "createFormattedPersistence",
        "createRunReport",
        "createRunTelemetryToolCall",
        "deriveRunOutcome",
        "describeRunError",
        "extractRunTelemetryModelId",
        "normalizeRunTelemetryUsage",
        "truncateRunTelemetryText",
        "generateThreadTitle",
        "readAnonymousRefreshToken",
        "wrapSamplingHandler",
        "createSamplingCollector"
      ].sort()
    )
    expect(result.effect).toEqual(expect.arrayContaining(["SvcClient", "SvcClientConfig", "CloudAPIError"]))
    // Loads in a consumer without `ai` installed: the entry uses it for types only.
    expect(result.aiSdk).toEqual(["aiSDKV6FormatAdapter", "extractAISDKRunTelemetry"])
    expect(result.telemetry).toEqual([
      "assistantCloudTraceExportOptions",
      "assistantCloudTraceMetadata",
      "createAssistantCloudSpanProcessor",
      "createAssistantCloudTraceExporter",
      "isAssistantCloudSpan",
      "withAssistantCloudTraceMetadata"
    ])
    // The peer is the app's own copy, not one bundled into the entry.
    expect(result.stockExporter).toBe(true)
    expect(result.ids).toEqual([result.created])
    expect(result.sameErrorClass).toBe(true)
    expect(result.status).toBe(404)
  })

  it("sends its own version in Svc-Sdk", async () => {
    const out = await node(`
      import { AssistantCloud } from "svc-client"
      let header
      const cloud = new AssistantCloud({ apiKey: "sk_x", userId: "u", workspaceId: "w", baseUrl: "http://h",
        fetch: async (_url, init) => { header = new Headers(init.headers).get("svc-sdk"); return new Response(null, { status: 204 }) } })
      await cloud.threads.delete("t")
      console.log(header)
    `)
    expect(out.trim()).toBe(`svc-client/${sdkVersion}`)
  })

  it("bundles for a browser with no Node built-ins and no effect in the main entry", async () => {
    fs.writeFileSync(
      path.join(consumer, "app.js"),
      `import { AssistantCloud } from "svc-client"\nwindow.cloud = new AssistantCloud({ baseUrl: location.origin, anonymous: true })\n`
    )
    const result = await esbuild.build({
      absWorkingDir: consumer,
      entryPoints: ["app.js"],
      bundle: true,
      minify: true,
      format: "esm",
      platform: "browser",
      write: false,
      metafile: true,
      logLevel: "silent"
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.some((input) => input.includes("node_modules/svc-client/dist/"))).toBe(true)
    expect(inputs.filter((input) => input.includes("node_modules/effect/"))).toEqual([])
    expect(result.outputFiles[0]?.text).not.toMatch(/from\s*["']node:/)
  })

  it("type-checks a consumer against the packed declarations", () => {
    fs.writeFileSync(
      path.join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          strict: true,
          exactOptionalPropertyTypes: true,
          noEmit: true,
          skipLibCheck: true,
          types: []
        },
        files: ["consumer.ts"]
      })
    )
    fs.writeFileSync(
      path.join(consumer, "consumer.ts"),
      `
      import { AssistantCloud, CloudAPIError, type CloudThread } from "svc-client"
      import { SvcClient } from "svc-client/effect"
      import { createAssistantCloudSpanProcessor, createAssistantCloudTraceExporter, withAssistantCloudTraceMetadata } from "svc-client/telemetry"
      import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base"
      import * as Effect from "effect/Effect"
      export const provider = new BasicTracerProvider({
        spanProcessors: [createAssistantCloudSpanProcessor(createAssistantCloudTraceExporter({ apiKey: "sk_x" }), { filter: (span) => span.name !== "x" })]
      })
      export const metadata: (options: { part: { type: "start" | "finish" } }) => Record<string, unknown> | undefined =
        withAssistantCloudTraceMetadata(({ part }) => ({ kind: part.type }))
      // @ts-expect-error the API key is required
      createAssistantCloudTraceExporter({ baseUrl: "https://example.test" })
      const cloud = new AssistantCloud({ baseUrl: "https://example.test/p/x", anonymous: true })
      export const title = async (id: string): Promise<string> => (await cloud.threads.get(id)).title
      export const when = async (id: string): Promise<Date> => (await cloud.threads.get(id)).created_at
      export const isApiError = (error: unknown): number | undefined => (error instanceof CloudAPIError ? error.status : undefined)
      export const thread: (t: CloudThread) => boolean = (t) => t.is_archived
      // @ts-expect-error last_message_at is a Date, not a string
      void cloud.threads.create({ last_message_at: "2026-01-01T00:00:00.000Z" })
      export const listed = Effect.flatMap(SvcClient, (client) => client.threads.list({ urlParams: { limit: 5 } }))
      // @ts-expect-error the thread path is required
      export const wrong = Effect.flatMap(SvcClient, (client) => client.threads.get({}))
      `
    )
    const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")
    const out = (() => {
      try {
        return execFileSync(process.execPath, [tsc, "-p", consumer], { cwd: consumer, encoding: "utf8" })
      } catch (error) {
        return String((error as { stdout?: string }).stdout ?? error)
      }
    })()
    expect(out.trim()).toBe("")
  })
})
