/** The dashboard page: mounts the app into the page's one element. */
import "uplot/dist/uPlot.min.css"
import "./styles/base.css"
import "./styles/layout.css"
import "./styles/tables.css"
import "./styles/conversation.css"
import "./styles/waterfall.css"
import "./styles/scores.css"
import "./styles/narrow.css"
import { render } from "preact"
import { App } from "./App.js"

const root = document.getElementById("app")
if (root) render(<App />, root)
