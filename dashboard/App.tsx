/** The session: checked on load, the sign-in form when there is none (or any call answers 401). */
import { useEffect, useState } from "preact/hooks"
import type { SessionInfo } from "../schema/Dashboard.js"
import { asCallError, type CallError, client, isCallError, onUnauthorized, run } from "./api.js"
import { Shell } from "./Shell.js"
import { SignIn } from "./SignIn.js"
import { ErrorText, Loading } from "./ui.js"

export type Session =
  | { readonly state: "checking" }
  | { readonly state: "signedOut"; readonly notice: string | undefined }
  | { readonly state: "signedIn"; readonly info: SessionInfo }
  | { readonly state: "failed"; readonly error: CallError }

/** Asks who the session is: signed in, signed out (401), or failed. */
export const checkSession = (): Promise<Session> =>
  run(client.session()).then(
    (info): Session => ({ state: "signedIn", info }),
    (error: unknown): Session => {
      if (isCallError(error) && error.unauthorized) return { state: "signedOut", notice: undefined }
      return { state: "failed", error: asCallError(error) }
    }
  )

/** `first`: the session check, started before the app is drawn (main.tsx). */
export const App = ({ first }: { readonly first: Promise<Session> }) => {
  const [session, setSession] = useState<Session>({ state: "checking" })
  const check = () => {
    setSession({ state: "checking" })
    checkSession().then(setSession)
  }
  useEffect(() => {
    first.then((next) =>
      // A 401 while checking already said "signed out"; keep the first word.
      setSession((now) => (now.state === "signedOut" ? now : next))
    )
    return onUnauthorized(() =>
      setSession((now) =>
        now.state === "signedOut"
          ? now
          : {
              state: "signedOut",
              notice: now.state === "signedIn" ? "Your session has ended. Sign in again." : undefined
            }
      )
    )
  }, [])
  useEffect(() => {
    if (session.state === "signedOut") document.title = "Sign in · svc dashboard"
  }, [session.state])

  switch (session.state) {
    case "checking":
      return (
        <main id="main" class="center">
          <Loading what="the session" />
        </main>
      )
    case "failed":
      return (
        <main id="main" class="center">
          <h1>svc dashboard</h1>
          <ErrorText error={session.error} what="the session" />
          <button type="button" onClick={check}>
            Try again
          </button>
        </main>
      )
    case "signedOut":
      return <SignIn notice={session.notice} onSignedIn={check} />
    case "signedIn":
      return (
        <Shell
          info={session.info}
          onSignedOut={() => setSession({ state: "signedOut", notice: "You have signed out." })}
        />
      )
  }
}
