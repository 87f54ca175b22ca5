/**
 * A small router on the History API: the path names the view, the query
 * holds its filters and open items, so every view is linkable and reloadable.
 */
import { useEffect, useState } from "preact/hooks"

export const BASE = "/dashboard"

/** The views of what a project holds. */
export type DataSection = "overview" | "threads" | "runs" | "traces" | "scores" | "topics"
/** The operating views (docs/dashboard.md "Operating views"): settings and the admin's tools. */
export type OperateSection = "settings" | "keys" | "alerts" | "evaluators" | "webhooks" | "erasure" | "jobs"
export type Section = DataSection | OperateSection

/** The views of what a project holds, before the operating views in the navigation. */
export const SECTIONS: ReadonlyArray<{ readonly id: DataSection; readonly label: string }> = [
  { id: "overview", label: "Overview" },
  { id: "threads", label: "Threads" },
  { id: "runs", label: "Runs" },
  { id: "traces", label: "Traces" },
  { id: "scores", label: "Scores" }
]

/**
 * Views of what a project holds that come after the operating views in the
 * navigation (docs/dashboard.md "The views": `Topics` after `Jobs`);
 * every session reads them.
 */
export const LATER_SECTIONS: ReadonlyArray<{ readonly id: DataSection; readonly label: string }> = [
  { id: "topics", label: "Topics" }
]

/** The operating views; `keySession`: open to a project API key's session (read-only there). */
export const OPERATE_SECTIONS: ReadonlyArray<{
  readonly id: OperateSection
  readonly label: string
  readonly keySession: boolean
}> = [
  { id: "settings", label: "Settings", keySession: true },
  { id: "keys", label: "Keys", keySession: false },
  { id: "alerts", label: "Alerts", keySession: false },
  { id: "evaluators", label: "Evaluators", keySession: false },
  { id: "webhooks", label: "Webhooks", keySession: false },
  { id: "erasure", label: "Erasure", keySession: false },
  { id: "jobs", label: "Jobs", keySession: false }
]

export const isOperateSection = (section: Section): section is OperateSection =>
  OPERATE_SECTIONS.some((each) => each.id === section)

export type Route =
  | { readonly kind: "home" }
  | { readonly kind: "notFound" }
  | {
      readonly kind: "project"
      readonly projectId: string
      readonly section: Section
      /** The open thread, run, trace or topic. */
      readonly itemId: string | undefined
    }

/** What every view is given: its project, the URL's query (filters, paging, open items) and the session's kind. */
export interface ViewProps {
  readonly projectId: string
  readonly query: URLSearchParams
  /** "admin" may change everything; "project" (an API key's session) reads its project's settings only. */
  readonly sessionKind: "admin" | "project"
}

export interface Location {
  readonly route: Route
  readonly query: URLSearchParams
}

const isSection = (value: string | undefined): value is Section =>
  [...SECTIONS, ...LATER_SECTIONS, ...OPERATE_SECTIONS].some((each) => each.id === value)

/** The sections whose items open at their own path (a thread, a run, a trace, a topic's threads). */
const WITH_ITEMS: ReadonlyArray<Section> = ["threads", "runs", "traces", "topics"]

const decode = (segment: string): string | undefined => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

export const parseRoute = (pathname: string): Route => {
  if (pathname === BASE || pathname === `${BASE}/`) return { kind: "home" }
  if (!pathname.startsWith(`${BASE}/`)) return { kind: "notFound" }
  const segments = pathname
    .slice(BASE.length + 1)
    .replace(/\/$/, "")
    .split("/")
    .map(decode)
  const [projects, projectId, section, itemId, ...rest] = segments
  if (projects !== "projects" || !projectId || !isSection(section) || rest.length > 0) return { kind: "notFound" }
  if (itemId !== undefined && (itemId === "" || !WITH_ITEMS.includes(section))) {
    return { kind: "notFound" }
  }
  return { kind: "project", projectId, section, itemId }
}

/** Query values to set: a list sets a name once per item; undefined or "" removes the name. */
export type QueryChanges = Record<string, string | ReadonlyArray<string> | undefined>

/** `path` with `search` changed as `changes` say. */
const withChanges = (path: string, search: URLSearchParams, changes: QueryChanges): string => {
  for (const [key, value] of Object.entries(changes)) {
    search.delete(key)
    if (typeof value === "string") {
      if (value !== "") search.set(key, value)
    } else if (value) for (const item of value) search.append(key, item)
  }
  const text = search.toString()
  return text === "" ? path : `${path}?${text}`
}

/** A view's path; `query` drops empty values. */
export const href = (projectId: string, section: Section, itemId?: string, query: QueryChanges = {}): string => {
  let path = `${BASE}/projects/${encodeURIComponent(projectId)}/${section}`
  if (itemId !== undefined) path += `/${encodeURIComponent(itemId)}`
  return withChanges(path, new URLSearchParams(), query)
}

/** The page's location now. */
export const currentLocation = (): Location => ({
  route: parseRoute(location.pathname),
  query: new URLSearchParams(location.search)
})

const listeners = new Set<() => void>()

export const navigate = (to: string, options: { readonly replace?: boolean } = {}): void => {
  if (to === location.pathname + location.search) return
  if (options.replace) history.replaceState(null, "", to)
  else history.pushState(null, "", to)
  for (const listener of listeners) listener()
}

/** The current path with some query values changed. */
export const withQuery = (changes: QueryChanges): string =>
  withChanges(location.pathname, new URLSearchParams(location.search), changes)

/** The location, re-rendering on every navigation (links, back and forward). */
export const useLocation = (): Location => {
  const [loc, setLoc] = useState(currentLocation)
  useEffect(() => {
    const update = () => setLoc(currentLocation())
    listeners.add(update)
    addEventListener("popstate", update)
    return () => {
      listeners.delete(update)
      removeEventListener("popstate", update)
    }
  }, [])
  return loc
}

/**
 * Same-document navigation for a plain left click on a link to the
 * dashboard; modified clicks (new tab, download) stay the browser's.
 */
export const interceptClicks = (event: MouseEvent): void => {
  if (event.defaultPrevented || event.button !== 0) return
  if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
  const target = event.target instanceof Element ? event.target.closest("a") : null
  if (target?.target !== "" || target.hasAttribute("download")) return
  const url = new URL(target.href, location.href)
  if (url.origin !== location.origin || !url.pathname.startsWith(`${BASE}/`)) return
  event.preventDefault()
  const newView = url.pathname !== location.pathname
  navigate(url.pathname + url.search)
  if (newView) {
    scrollTo(0, 0)
    document.getElementById("main")?.focus({ preventScroll: true })
  }
}
