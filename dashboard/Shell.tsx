/** Signed in: the header (project, navigation, sign out) and the view the URL names. */
import { useEffect, useState } from "preact/hooks"
import type { SessionInfo } from "../schema/Dashboard.js"
import { asCallError, type CallError, client, isCallError, run } from "./api.js"
import {
  BASE,
  href,
  interceptClicks,
  LATER_SECTIONS,
  navigate,
  OPERATE_SECTIONS,
  SECTIONS,
  useLocation
} from "./router.js"
import { Empty, ErrorText, Loading, useTitle } from "./ui.js"

/** Before a second try of a sign-out the gateway could not answer (busy, unreachable). */
const SIGN_OUT_RETRY_MS = 1000

/**
 * Ends the session on the gateway: done, or already ended (401). A failure
 * on the way (no answer, 5xx) is tried once more; what still fails is
 * thrown, so that the page never says "signed out" while the session lives.
 */
const endSession = async (): Promise<void> => {
  const ended = (error: unknown) => isCallError(error) && error.unauthorized
  const transient = (error: unknown) => !isCallError(error) || error.status === undefined || error.status >= 500
  try {
    await run(client.signOut(), { quiet: true })
  } catch (error) {
    if (ended(error)) return
    if (!transient(error)) throw error
    await new Promise((done) => setTimeout(done, SIGN_OUT_RETRY_MS))
    try {
      await run(client.signOut(), { quiet: true })
    } catch (again) {
      if (!ended(again)) throw again
    }
  }
}

import { useViews } from "./views.js"

/** The first link of each group after the first in the navigation: the operating views, then the later data views. */
const GROUP_FIRST: ReadonlySet<string> = new Set(
  [OPERATE_SECTIONS[0]?.id, LATER_SECTIONS[0]?.id].filter((id) => id !== undefined)
)

const NotFound = ({ what }: { readonly what: string }) => {
  useTitle("Not found")
  return (
    <>
      <h1>Not found</h1>
      <Empty>
        {what} <a href={`${BASE}/`}>Go to the first project</a>.
      </Empty>
    </>
  )
}

export const Shell = (props: { readonly info: SessionInfo; readonly onSignedOut: () => void }) => {
  const { route, query } = useLocation()
  const views = useViews()
  const { projects } = props.info
  const [signingOut, setSigningOut] = useState(false)
  const [signOutError, setSignOutError] = useState<CallError | undefined>(undefined)
  const first = projects[0]

  useEffect(() => {
    document.addEventListener("click", interceptClicks)
    return () => document.removeEventListener("click", interceptClicks)
  }, [])
  useEffect(() => {
    if (route.kind === "home" && first) navigate(href(first.id, "overview"), { replace: true })
  }, [route.kind, first])

  const signOut = async () => {
    setSigningOut(true)
    setSignOutError(undefined)
    try {
      await endSession()
    } catch (error) {
      // Still signed in on the gateway: say so, and stay.
      setSignOutError(asCallError(error))
      setSigningOut(false)
      return
    }
    navigate(`${BASE}/`, { replace: true })
    props.onSignedOut()
  }

  const projectId = route.kind === "project" ? route.projectId : first?.id
  const project = projects.find((candidate) => candidate.id === projectId)
  const section = route.kind === "project" ? route.section : "overview"
  const admin = props.info.kind === "admin"

  return (
    <div class="app">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <div class="brand">svc dashboard</div>
        {props.info.kind === "admin" ? (
          <label class="inline project">
            Project
            <select value={project?.id ?? ""} onChange={(event) => navigate(href(event.currentTarget.value, section))}>
              {project ? null : <option value="">Choose a project</option>}
              {projects.map((each) => (
                <option key={each.id} value={each.id}>
                  {each.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <p class="project">
            <span class="muted">Project</span> {project?.name ?? first?.name ?? "—"}
          </p>
        )}
        <button type="button" class="quiet sign-out" onClick={signOut} disabled={signingOut}>
          Sign out
        </button>
        {signOutError ? (
          <p class="state error sign-out-error" role="alert">
            Could not sign out: {signOutError.message} You are still signed in; try again.
          </p>
        ) : null}
        {project ? (
          <nav class="sections" aria-label="Sections">
            <ul>
              {[...SECTIONS, ...OPERATE_SECTIONS.filter((each) => admin || each.keySession), ...LATER_SECTIONS].map(
                (each) => (
                  <li key={each.id} class={GROUP_FIRST.has(each.id) ? "group-first" : undefined}>
                    <a href={href(project.id, each.id)} aria-current={each.id === section ? "page" : undefined}>
                      {each.label}
                    </a>
                  </li>
                )
              )}
            </ul>
          </nav>
        ) : null}
      </header>
      <main id="main" tabIndex={-1}>
        {projects.length === 0 ? (
          <Empty>This session has no projects to show.</Empty>
        ) : route.kind === "notFound" ? (
          <NotFound what="There is no page at this address." />
        ) : route.kind === "home" ? null : !project ? (
          <NotFound what="This project does not exist or this session may not open it." />
        ) : views.state === "loading" ? (
          <Loading what="the view" />
        ) : views.state === "error" ? (
          <ErrorText error={views.error} />
        ) : (
          <views.value.View
            key={`${route.projectId}/${route.section}/${route.itemId ?? ""}`}
            projectId={route.projectId}
            section={route.section}
            itemId={route.itemId}
            query={query}
            sessionKind={props.info.kind}
          />
        )}
      </main>
    </div>
  )
}
