/**
 * The client library in real headless Chromium (issue 13): Debian's chromium
 * driven by playwright-core, the client bundled by esbuild and served with a
 * page from its own origin, and a recording proxy in front of the gateway
 * (so CORS is real, and the test sees every request the browser sent, even
 * one that outlives its page).
 */
import { existsSync } from "node:fs"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"
import { type Browser, type CDPSession, chromium, type Page } from "playwright-core"
import { admin, type Gateway } from "../support/layers.js"

/** Where Debian's package puts the browser (.ci/run installs it). */
export const CHROMIUM = "/usr/bin/chromium"

/**
 * Whether the browser suites run: yes with Chromium; without it they skip
 * (saying so) unless CI=true, where a missing browser is a failure.
 */
export const browserSupport = (): { readonly available: boolean; readonly required: boolean } => ({
  available: existsSync(CHROMIUM),
  required: process.env.CI === "true"
})

/** Without the networking flags the browser waits on the closed network at start. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })

const listen = (server: http.Server): Promise<string> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject)
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)
    })
  })

const close = (server: http.Server): Promise<void> =>
  new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

/** svc-client's main entry as one ES module for the page. */
export const bundleClient = async (): Promise<string> => {
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(new URL("../../sdk/index.ts", import.meta.url))],
    bundle: true,
    format: "esm",
    platform: "browser",
    write: false,
    logLevel: "silent"
  })
  const [file] = result.outputFiles
  if (file === undefined) throw new Error("esbuild produced no output")
  return file.text
}

/** The app's page: it loads the client and puts it on `window.svc`. */
const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>svc-client</title>
<script type="module">import * as svc from "/svc-client.js"; window.svc = svc</script>
</head><body><p>svc-client browser test</p></body></html>`

/** A page of the same origin without the client, to navigate to. */
const OTHER = `<!doctype html><html><head><meta charset="utf-8"><title>other</title></head><body>other</body></html>`

export interface StaticSite {
  /** The page origin: http://127.0.0.1:<port>, a secure context, other than the gateway's. */
  readonly origin: string
  readonly close: () => Promise<void>
}

/** Serves `/` (the app page), `/svc-client.js` (the bundle) and `/other` (no client). */
export const startStaticSite = async (bundle: string): Promise<StaticSite> => {
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname
    const [type, body] =
      path === "/"
        ? ["text/html; charset=utf-8", PAGE]
        : path === "/svc-client.js"
          ? ["text/javascript; charset=utf-8", bundle]
          : path === "/other"
            ? ["text/html; charset=utf-8", OTHER]
            : [undefined, undefined]
    if (type === undefined) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { "content-type": type, "cache-control": "no-store" }).end(body)
  })
  const origin = await listen(server)
  return { origin, close: () => close(server) }
}

export interface Recorded {
  readonly method: string
  /** Path and query as the browser sent them. */
  readonly path: string
  readonly headers: http.IncomingHttpHeaders
  readonly body: string
  /** When the whole request had arrived (Date.now()). */
  readonly at: number
}

export interface RecordingProxy {
  /** Stands for the gateway's origin in the page's base URLs. */
  readonly origin: string
  /** Every request received, in order of arrival. */
  readonly requests: Array<Recorded>
  /** Called before a request is passed on; the request waits for its promise (a delay, a hold). */
  before: (request: Recorded) => Promise<void> | undefined
  readonly close: () => Promise<void>
}

/** An HTTP proxy to `gateway` that records each request and may hold it before passing it on. */
export const startRecordingProxy = async (gateway: Gateway): Promise<RecordingProxy> => {
  const target = new URL(gateway.baseUrl)
  const proxy: { -readonly [K in keyof RecordingProxy]: RecordingProxy[K] } = {
    origin: "",
    requests: [],
    before: () => undefined,
    close: async () => {}
  }
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", async () => {
      const body = Buffer.concat(chunks)
      const recorded: Recorded = {
        method: request.method ?? "GET",
        path: request.url ?? "/",
        headers: request.headers,
        body: body.toString("utf8"),
        at: Date.now()
      }
      proxy.requests.push(recorded)
      await proxy.before(recorded)
      const upstream = http.request(
        {
          host: target.hostname,
          port: target.port,
          method: recorded.method,
          path: recorded.path,
          headers: { ...request.headers, host: target.host }
        },
        (answer) => {
          response.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(response)
        }
      )
      upstream.on("error", () => response.destroy())
      upstream.end(body)
    })
  })
  proxy.origin = await listen(server)
  proxy.close = () => close(server)
  return proxy
}

/** The requests to the frontend path ending in `suffix` (e.g. "/v1/events"), by method. */
export const requestsTo = (proxy: RecordingProxy, suffix: string, method = "POST"): Array<Recorded> =>
  proxy.requests.filter((request) => request.method === method && request.path.split("?")[0]?.endsWith(suffix))

/** A project whose frontend base URL (through the proxy) the page origin may call. */
export const browserProject = async (gateway: Gateway, proxy: RecordingProxy, pageOrigin: string, name: string) => {
  const created = await admin(gateway)("POST", "/projects", { name })
  if (created.status !== 201) throw new Error(`project create failed: ${created.status} ${created.text}`)
  const projectId: string = created.body.project_id
  const origins = await admin(gateway)("PUT", `/projects/${projectId}/origins`, { origins: [pageOrigin] })
  if (origins.status !== 200) throw new Error(`origins failed: ${origins.status} ${origins.text}`)
  return { projectId, apiKey: created.body.api_key as string, baseUrl: `${proxy.origin}/p/${projectId}` }
}

/** Opens the app page and waits for the client on `window.svc`. */
export const openApp = async (page: Page, site: StaticSite): Promise<void> => {
  await page.goto(`${site.origin}/`)
  await page.waitForFunction(() => (window as any).svc !== undefined)
}

/** Polls `read` until `done` holds of its value (or the time is up); answers the last value. */
export const until = async <A>(
  read: () => Promise<A> | A,
  done: (value: A) => boolean,
  timeoutMs = 5_000
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/** The types of the listeners on `window` or `document`, as DevTools sees them. */
export const listenerTypes = async (cdp: CDPSession, target: "window" | "document"): Promise<Array<string>> => {
  const { result } = await cdp.send("Runtime.evaluate", { expression: target })
  if (result.objectId === undefined) throw new Error(`no object for ${target}`)
  const { listeners } = await cdp.send("DOMDebugger.getEventListeners", { objectId: result.objectId })
  await cdp.send("Runtime.releaseObject", { objectId: result.objectId })
  return listeners.map((listener) => listener.type)
}

/** The hider's listeners: pagehide on window, visibilitychange on document. */
export const hideListeners = async (cdp: CDPSession) => ({
  pagehide: (await listenerTypes(cdp, "window")).filter((type) => type === "pagehide").length,
  visibilitychange: (await listenerTypes(cdp, "document")).filter((type) => type === "visibilitychange").length
})
