/**
 * The page's lazy chunks. The views' chunk (views/index.tsx) is asked for
 * once, at the page's start (main.tsx), so that it comes while the session
 * is checked; the shell draws the view once it is there. The operating
 * views' chunk (views/operate/index.tsx) is asked for when one of them is
 * opened.
 */
import { lazyChunk } from "./load.js"

const views = lazyChunk(() => import("./views/index.js"), "its views")

/** The views' chunk, asked for on the first call. */
export const loadViews = views.load

/** The views' chunk's state, drawn again once it is there. */
export const useViews = views.use
