/** The dashboard page: mounts the app into the page's one element. */
import "uplot/dist/uPlot.min.css"
import "./styles/base.css"
import "./styles/layout.css"
import "./styles/tables.css"
import "./styles/conversation.css"
import "./styles/waterfall.css"
import "./styles/scores.css"
import "./styles/operate.css"
import "./styles/operate-settings.css"
import "./styles/operate-rules.css"
import "./styles/operate-data.css"
import "./styles/narrow.css"
import { render } from "preact"
import { App, checkSession } from "./App.js"
import { prefetchView, prepareView } from "./data.js"
import { prepareFormats } from "./format.js"
import { currentLocation } from "./router.js"
import { loadViews } from "./views.js"

// The libraries are evaluated: stack traces as they were (prelude.ts).
if (globalThis.svcStackTraceLimit !== undefined) Error.stackTraceLimit = globalThis.svcStackTraceLimit

const root = document.getElementById("app")
if (root) {
  // The session check goes out before anything is drawn. While it is on its way, the views' chunk
  // (preloaded by index.html) is evaluated and the clients of the first view's calls are made; the calls
  // go out the moment it answers, before the app draws the answer, and while they are on their way the
  // formatters the view will use are made.
  const location = currentLocation()
  const first = checkSession()
  first.then((session) => {
    if (session.state !== "signedIn") return
    prefetchView(location, session.info)
    prepareFormats()
  })
  render(<App first={first} />, root)
  loadViews().catch(() => undefined) // The shell says it, when it draws the view.
  prepareView(location)
}
