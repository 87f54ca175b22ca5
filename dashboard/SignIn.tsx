/** The sign-in form: the admin token or a project API key, sent once to set the session cookie. */
import { useEffect, useRef, useState } from "preact/hooks"
import { client, isCallError, run } from "./api.js"

const failureWords = (error: unknown): string => {
  if (!isCallError(error)) return "Something went wrong."
  if (error.status === 401 || error.unauthorized) return "That token was not accepted."
  if (error.status === 429) return "Too many attempts. Wait a minute, then try again."
  return error.message
}

export const SignIn = (props: { readonly notice: string | undefined; readonly onSignedIn: () => void }) => {
  const [busy, setBusy] = useState(false)
  const [problem, setProblem] = useState<string | undefined>(undefined)
  const input = useRef<HTMLInputElement>(null)
  useEffect(() => input.current?.focus(), [])

  const submit = async (event: Event) => {
    event.preventDefault()
    const token = input.current?.value ?? ""
    if (token === "") {
      setProblem("Enter the admin token or a project API key.")
      input.current?.focus()
      return
    }
    setBusy(true)
    setProblem(undefined)
    try {
      await run(client.signIn({ payload: { token } }), { quiet: true })
      props.onSignedIn()
    } catch (error) {
      setBusy(false)
      setProblem(failureWords(error))
      input.current?.select()
    }
  }

  return (
    <main id="main" class="center sign-in">
      <h1>svc dashboard</h1>
      {props.notice && !problem ? (
        <p class="state" role="status">
          {props.notice}
        </p>
      ) : null}
      <form onSubmit={submit} class="card" aria-describedby={problem ? "sign-in-problem" : undefined}>
        <label for="token">Token</label>
        <input
          ref={input}
          id="token"
          name="token"
          type="password"
          autoComplete="current-password"
          aria-invalid={problem ? "true" : undefined}
          aria-describedby="token-hint"
          maxLength={512}
        />
        <p id="token-hint" class="hint">
          The admin token, or a project API key for that project alone.
        </p>
        {problem ? (
          <p id="sign-in-problem" class="state error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" disabled={busy} aria-busy={busy ? "true" : undefined}>
          Sign in
        </button>
      </form>
    </main>
  )
}
