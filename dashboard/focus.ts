/**
 * Keeping the keyboard's place across a navigation that redraws the focused
 * control: a form keyed by the URL is made anew, and a pager is drawn again
 * once the next page has loaded. Without this the focus falls back to the
 * page's body and a keyboard user starts again from the top.
 */
import { useEffect, useRef } from "preact/hooks"

/** Nothing has the focus: the control that had it has left the page. */
export const focusLost = (): boolean => document.activeElement === null || document.activeElement === document.body

/**
 * For a form keyed by `key`: `keep()`, called before navigating, notes
 * which of the form's controls has the focus; when the key has changed and
 * the new form is drawn, the same control of it (or its first) gets the
 * focus back.
 */
export const useFormFocus = (key: string) => {
  const form = useRef<HTMLFormElement>(null)
  const kept = useRef<number | undefined>(undefined)
  useEffect(() => {
    const index = kept.current
    kept.current = undefined
    const now = form.current
    if (index === undefined || !now || !focusLost()) return
    const control = now.elements[index] ?? now.elements[0]
    if (control instanceof HTMLElement) control.focus()
  }, [key])
  const keep = () => {
    const active = document.activeElement
    const now = form.current
    if (active && now?.contains(active)) kept.current = [...now.elements].indexOf(active)
  }
  return { form, keep }
}
