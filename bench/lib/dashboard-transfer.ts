/**
 * What a first visit transfers: a cold load (empty cache) of a view with the
 * Chrome DevTools Protocol's Network domain on, every response kept with its
 * type, its `content-encoding`, its body as sent (`content-length`, else
 * `Network.loadingFinished` encodedDataLength less the header bytes) and
 * encodedDataLength itself (body and headers on the wire).
 */
import type { Browser, BrowserContext } from "playwright-core"
import { coldContext, type Target } from "./dashboard-browser.js"

export interface Transferred {
  readonly path: string
  /** The CDP resource type: Document, Script, Stylesheet, Fetch, Image, ... */
  readonly type: string
  readonly status: number
  readonly encoding: string
  readonly bodyBytes: number
  readonly wireBytes: number
}

export interface Transfer {
  readonly files: ReadonlyArray<Transferred>
  /** Compressed bodies: the scripts and stylesheets, index.html, and the two together. */
  readonly jsCssBytes: number
  readonly htmlBytes: number
  readonly totalBytes: number
  /** The encodings the page's scripts and stylesheets came in (what Chromium asked for over http). */
  readonly encodings: ReadonlyArray<string>
}

const header = (headers: Record<string, unknown>, name: string): string | undefined => {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name && typeof value === "string") return value
  }
  return undefined
}

export const coldTransfer = async (
  browser: Browser,
  signedIn: BrowserContext,
  url: string,
  target: Target
): Promise<Transfer> => {
  const context = await coldContext(browser, signedIn)
  try {
    const page = await context.newPage()
    const cdp = await context.newCDPSession(page)
    const received = new Map<string, Omit<Transferred, "bodyBytes" | "wireBytes"> & { headerBytes: number }>()
    const lengths = new Map<string, number | undefined>()
    const files: Array<Transferred> = []
    cdp.on("Network.responseReceived", (event) => {
      const length = header(event.response.headers, "content-length")
      lengths.set(event.requestId, length === undefined ? undefined : Number(length))
      received.set(event.requestId, {
        path: new URL(event.response.url).pathname,
        type: event.type,
        status: event.response.status,
        encoding: header(event.response.headers, "content-encoding") ?? "identity",
        headerBytes: event.response.encodedDataLength
      })
    })
    cdp.on("Network.loadingFinished", (event) => {
      const response = received.get(event.requestId)
      if (response === undefined) return
      const { headerBytes, ...rest } = response
      const bodyBytes = lengths.get(event.requestId) ?? event.encodedDataLength - headerBytes
      files.push({ ...rest, bodyBytes, wireBytes: event.encodedDataLength })
    })
    await cdp.send("Network.enable")
    await page.goto(url, { waitUntil: "commit" })
    await page.locator(target.selector).nth(target.index).waitFor({ state: "visible", timeout: 120_000 })
    await page.waitForLoadState("networkidle")
    await cdp.detach()
    const sum = (types: ReadonlyArray<string>) =>
      files.filter((file) => types.includes(file.type)).reduce((total, file) => total + file.bodyBytes, 0)
    const jsCssBytes = sum(["Script", "Stylesheet"])
    const htmlBytes = sum(["Document"])
    const encodings = [
      ...new Set(files.filter((f) => f.type === "Script" || f.type === "Stylesheet").map((f) => f.encoding))
    ]
    return { files, jsCssBytes, htmlBytes, totalBytes: jsCssBytes + htmlBytes, encodings }
  } finally {
    await context.close()
  }
}
