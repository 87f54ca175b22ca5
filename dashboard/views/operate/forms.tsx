/**
 * What the operating views share: a change's state (busy, refused in words,
 * done), a confirmation dialog, and a secret shown once with a copy button.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useRef, useState } from "preact/hooks"
import { asCallError, type CallError } from "../../api.js"

export interface Action {
  /** A change is on its way: its buttons are disabled. */
  readonly busy: boolean
  /** The last change's refusal or failure, in words. */
  readonly error: CallError | undefined
  /** What the last change did, in words. */
  readonly done: string | undefined
  /** Runs `change`; `said` is what to tell once it has worked. The value, or undefined when it failed. */
  readonly act: <A>(change: () => Promise<A>, said: string | ((value: A) => string)) => Promise<A | undefined>
  /** Forgets the last outcome (a form edited again). */
  readonly clear: () => void
}

/** One form's changes: one at a time, each outcome said (ActionResult shows it). */
export const useAction = (): Action => {
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<CallError | undefined>(undefined)
  const [done, setDone] = useState<string | undefined>(undefined)
  const act = async <A,>(change: () => Promise<A>, said: string | ((value: A) => string)) => {
    setBusy(true)
    setError(undefined)
    setDone(undefined)
    try {
      const value = await change()
      setDone(typeof said === "string" ? said : said(value))
      return value
    } catch (failure) {
      setError(asCallError(failure))
      return undefined
    } finally {
      setBusy(false)
    }
  }
  const clear = () => {
    setError(undefined)
    setDone(undefined)
  }
  return { busy, error, done, act, clear }
}

/** The outcome of a form's last change: a refusal as an alert, a success as a status message. */
export const ActionResult = ({ action }: { readonly action: Action }) => (
  <>
    {action.error ? (
      <p class="state error" role="alert">
        {action.error.message}
      </p>
    ) : null}
    <p class="state done" role="status">
      {action.done ?? ""}
    </p>
  </>
)

/**
 * A modal confirmation (the browser's <dialog>: focus kept inside, Escape
 * cancels), named by its title. Shown while `open`.
 */
export const ConfirmDialog = (props: {
  readonly open: boolean
  readonly title: string
  readonly confirm: string
  readonly busy?: boolean
  readonly onConfirm: () => void
  readonly onCancel: () => void
  readonly children: ComponentChildren
}) => {
  const ref = useRef<HTMLDialogElement>(null)
  useEffect(() => {
    const dialog = ref.current
    if (!dialog) return
    if (props.open && !dialog.open) dialog.showModal()
    if (!props.open && dialog.open) dialog.close()
  }, [props.open])
  const titleId = `dialog-${props.title.replace(/\W+/g, "-").toLowerCase()}`
  return (
    <dialog ref={ref} class="confirm" aria-labelledby={titleId} onCancel={props.onCancel}>
      <h2 id={titleId}>{props.title}</h2>
      {props.children}
      <div class="buttons">
        <button type="button" class="danger" onClick={props.onConfirm} disabled={props.busy}>
          {props.confirm}
        </button>
        <button type="button" class="quiet" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
    </dialog>
  )
}

/**
 * A secret the gateway shows once (a new key, a signing secret), in a region
 * named `title`, with a button that copies it.
 */
export const SecretOnce = (props: {
  readonly title: string
  readonly copyLabel: string
  readonly value: string
  readonly children?: ComponentChildren
}) => {
  const [copied, setCopied] = useState<string | undefined>(undefined)
  const titleId = `secret-${props.title.replace(/\W+/g, "-").toLowerCase()}`
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.value)
      setCopied("Copied.")
    } catch {
      setCopied("The browser refused to copy: select the value and copy it.")
    }
  }
  return (
    <section class="secret" aria-labelledby={titleId}>
      <h3 id={titleId}>{props.title}</h3>
      <p>{props.children ?? "Shown this once: keep it now, it cannot be read again."}</p>
      <code class="secret-value">{props.value}</code>{" "}
      <button type="button" onClick={copy}>
        {props.copyLabel}
      </button>{" "}
      <span role="status">{copied ?? ""}</span>
    </section>
  )
}
