// The example's app server: the built page (dist/, `npm run build`), its configuration
// (/config.json: the gateway project's frontend base URL) and a local model stand-in (/api/chat:
// a plain-text answer streamed in pieces). Nothing here talks to anything but this machine.
//
//   SVC_PROJECT_ID  the gateway project (required), e.g. the `default` project `npm start` printed
//   SVC_BASE_URL    the gateway (default http://127.0.0.1:8787)
//   ADMIN_TOKEN     the gateway's admin token: when set, this app's origin is added to the
//                   project's allowed origins at start (else set it yourself: README.md)
//   PORT, HOST      where to listen (default 5173 on 127.0.0.1; PORT=0 picks a free port)
import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { createServer } from "node:http"
import { extname, join, normalize } from "node:path"
import { fileURLToPath } from "node:url"

const DIST = fileURLToPath(new URL("./dist/", import.meta.url))
const gateway = (process.env.SVC_BASE_URL || "http://127.0.0.1:8787").replace(/\/+$/, "")
const projectId = process.env.SVC_PROJECT_ID || ""
const port = Number(process.env.PORT ?? "5173")
const host = process.env.HOST || "127.0.0.1"
/** Milliseconds between two pieces of an answer, so that it is seen streaming. */
const PIECE_DELAY_MS = Number(process.env.MODEL_DELAY_MS ?? "40")

if (!/^proj_[0-9A-Za-z]+$/.test(projectId)) {
  console.error("SVC_PROJECT_ID must name the gateway project (proj_..., printed by `npm start` on its first start)")
  process.exit(1)
}

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".json": "application/json"
}

/** The stand-in model's answer to the conversation so far: deterministic, in the words of the last question. */
const answerTo = (messages) => {
  const last = [...messages].reverse().find((message) => message.role === "user")?.text ?? ""
  const turn = messages.filter((message) => message.role === "user").length
  return `You asked: "${last}". This answer comes from the local stand-in model (turn ${turn}), streamed word by word, and the gateway stores it with the thread.`
}

const readBody = async (request) => {
  const chunks = []
  let size = 0
  for await (const chunk of request) {
    size += chunk.length
    if (size > 1_000_000) throw new Error("body too large")
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString("utf8")
}

const chat = async (request, response) => {
  let messages
  try {
    const body = JSON.parse(await readBody(request))
    messages = Array.isArray(body.messages) ? body.messages : undefined
  } catch {
    messages = undefined
  }
  if (messages === undefined) {
    response.writeHead(400, { "content-type": "text/plain; charset=utf-8" }).end("expected { messages: [...] }")
    return
  }
  response.writeHead(200, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" })
  const pieces = answerTo(messages).match(/\S+\s*/g) ?? []
  for (const piece of pieces) {
    if (response.destroyed) return
    response.write(piece)
    await new Promise((resolve) => setTimeout(resolve, PIECE_DELAY_MS))
  }
  response.end()
}

const serveFile = async (path, response) => {
  const relative = normalize(path === "/" ? "/index.html" : path).replace(/^(\.\.[/\\])+/, "")
  const file = join(DIST, relative)
  const found = file.startsWith(DIST) ? await stat(file).catch(() => undefined) : undefined
  // Any other path is the page itself (a single-page app).
  const target = found?.isFile() ? file : join(DIST, "index.html")
  const type = TYPES[extname(target)] ?? "application/octet-stream"
  const cache = target.includes(`${join(DIST, "assets")}`) ? "public, max-age=31536000, immutable" : "no-store"
  response.writeHead(200, { "content-type": type, "cache-control": cache })
  createReadStream(target)
    .on("error", () => response.destroy())
    .pipe(response)
}

const server = createServer((request, response) => {
  const path = new URL(request.url ?? "/", "http://x").pathname
  if (path === "/api/chat" && request.method === "POST") {
    chat(request, response).catch(() => response.destroy())
    return
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405).end()
    return
  }
  if (path === "/config.json") {
    response
      .writeHead(200, { "content-type": "application/json", "cache-control": "no-store" })
      .end(JSON.stringify({ baseUrl: `${gateway}/p/${projectId}` }))
    return
  }
  serveFile(path, response).catch(() => response.destroy())
})

/** Adds `origin` to the project's allowed origins through the admin API (ADMIN_TOKEN). */
const allowOrigin = async (origin, token) => {
  const url = `${gateway}/v1/admin/projects/${projectId}/origins`
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" }
  const current = await fetch(url, { headers })
  if (!current.ok) throw new Error(`GET origins answered ${current.status}`)
  const { origins } = await current.json()
  if (origins.includes(origin)) return
  const set = await fetch(url, { method: "PUT", headers, body: JSON.stringify({ origins: [...origins, origin] }) })
  if (!set.ok) throw new Error(`PUT origins answered ${set.status}: ${await set.text()}`)
}

await stat(join(DIST, "index.html")).catch(() => {
  console.error(`${DIST}index.html is missing: run \`npm run build\` in examples/assistant-ui first`)
  process.exit(1)
})
server.listen(port, host, async () => {
  const address = server.address()
  const origin = `http://${host}:${typeof address === "object" && address !== null ? address.port : port}`
  if (process.env.ADMIN_TOKEN) {
    try {
      await allowOrigin(origin, process.env.ADMIN_TOKEN)
    } catch (error) {
      console.error(`could not add ${origin} to the project's allowed origins: ${error.message}`)
    }
  }
  console.log(`assistant-ui example on ${origin} (gateway project ${gateway}/p/${projectId})`)
})
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    server.closeAllConnections()
    server.close(() => process.exit(0))
  })
