/**
 * What the Alerts and Evaluators views share: a list loaded again after
 * each change, a form's heading and buttons, the per-row actions, and a
 * number read from an input.
 */
import type { ComponentChildren } from "preact"
import { useRef } from "preact/hooks"
import { counted } from "./parts.js"

/** A number typed in an input; undefined when empty or not a number. */
export const numberOf = (text: string): number | undefined => {
  if (text.trim() === "") return undefined
  const n = Number(text)
  return Number.isFinite(n) ? n : undefined
}

/** The choice among `values` that `text` names (a select's value), else undefined. */
export const choiceOf = <A extends string>(values: ReadonlyArray<A>, text: string): A | undefined =>
  values.find((value) => value === text)

/** Focuses the form's first field once the form is drawn with new values (an edit started). */
export const useFocusFirst = () => {
  const ref = useRef<HTMLFormElement>(null)
  const focus = () =>
    requestAnimationFrame(() => {
      const first = ref.current?.querySelector<HTMLInputElement>("input, select, textarea")
      ref.current?.scrollIntoView({ block: "start" })
      first?.focus()
    })
  return [ref, focus] as const
}

/** A row's buttons: edit and delete, named with the row. */
export const RowActions = (props: {
  readonly name: string
  readonly onEdit: () => void
  readonly onDelete: () => void
  readonly children?: ComponentChildren
}) => (
  <div class="rules-actions">
    {props.children}
    <button type="button" onClick={props.onEdit} aria-label={`Edit ${props.name}`}>
      Edit
    </button>
    <button type="button" class="quiet" onClick={props.onDelete} aria-label={`Delete ${props.name}`}>
      Delete
    </button>
  </div>
)

/** Minutes in words: "45 min", "2 h", "7 days". */
export const minutesText = (minutes: number): string => {
  if (minutes % 1_440 === 0) return counted(minutes / 1_440, "day")
  if (minutes % 60 === 0) return `${minutes / 60} h`
  return `${minutes} min`
}
