/**
 * The views' chunk (views/index.tsx): asked for once, at the page's start
 * (main.tsx), so that it comes while the session is checked; the shell draws
 * the view once it is there.
 */
import { useEffect, useState } from "preact/hooks"
import type { Loaded } from "./load.js"

type Views = typeof import("./views/index.js")

let loaded: Loaded<Views> = { state: "loading" }
let loading: Promise<Views> | undefined

/** The chunk, asked for on the first call (again after a failure). */
export const loadViews = (): Promise<Views> => {
  loading ??= import("./views/index.js").then(
    (views) => {
      loaded = { state: "ok", value: views }
      return views
    },
    (error: unknown) => {
      loading = undefined
      loaded = {
        state: "error",
        error: { status: undefined, message: "The page could not load its views: reload it.", unauthorized: false }
      }
      throw error
    }
  )
  return loading
}

/** The chunk's state, drawn again once it is there. */
export const useViews = (): Loaded<Views> => {
  const [, setVersion] = useState(0)
  useEffect(() => {
    if (loaded.state === "ok") return
    const redraw = () => setVersion((n) => n + 1)
    loadViews().then(redraw, redraw)
  }, [])
  return loaded
}
