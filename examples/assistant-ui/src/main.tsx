import { StrictMode } from "react"
import { createRoot } from "react-dom/client"
import { AssistantCloud } from "svc-client"
import { App } from "./App.js"
import "./styles.css"

/** What the app server (server.mjs) tells the page: the gateway project's frontend base URL. */
interface AppConfig {
  readonly baseUrl: string
}

const readConfig = async (): Promise<AppConfig> => {
  const response = await fetch("/config.json")
  if (!response.ok) throw new Error(`/config.json answered ${response.status}`)
  const body: unknown = await response.json()
  if (typeof body !== "object" || body === null || !("baseUrl" in body) || typeof body.baseUrl !== "string")
    throw new Error("/config.json has no baseUrl")
  return { baseUrl: body.baseUrl }
}

const root = document.getElementById("root")
if (root === null) throw new Error("no #root element")
const { baseUrl } = await readConfig()
// An anonymous session on the project's frontend base URL (`<gateway>/p/<project_id>`): the browser
// gets its own anonymous user, kept in localStorage, whose threads only it sees.
const cloud = new AssistantCloud({ baseUrl, anonymous: true })
createRoot(root).render(
  <StrictMode>
    <App cloud={cloud} />
  </StrictMode>
)
