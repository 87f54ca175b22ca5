/**
 * Filters kept in the URL: the form that sets them, and how a view reads
 * them back into a route's query values.
 */
import { useId, useRef } from "preact/hooks"
import { useFormFocus } from "./focus.js"
import { dayEnd, dayStart } from "./format.js"
import { FIRST_PAGE } from "./paging.js"
import { navigate, withQuery } from "./router.js"

/** The value of a text filter in the URL, or undefined. */
export const param = (query: URLSearchParams, name: string): string | undefined => query.get(name)?.trim() || undefined

/** The text filters the URL gives, by name; those it leaves empty are left out. */
export const textParams = <K extends string>(
  query: URLSearchParams,
  names: ReadonlyArray<K>
): Partial<Record<K, string>> => {
  const values: Partial<Record<K, string>> = {}
  for (const name of names) {
    const value = param(query, name)
    if (value) values[name] = value
  }
  return values
}

/** A select filter's value, if the URL names one of its options. */
export const optionOf = <T extends string>(
  options: ReadonlyArray<readonly [value: T, label: string]>,
  value: string | undefined
): T | undefined => options.find(([option]) => option === value)?.[0]

/** The `from` and `to` date filters: the start of the first day and the end of the last, in the browser's zone. */
export const dayRange = (query: URLSearchParams) => {
  const from = dayStart(query.get("from") ?? "")
  const to = dayEnd(query.get("to") ?? "")
  return { ...(from ? { from } : {}), ...(to ? { to } : {}) }
}

export type FilterField =
  | { readonly name: string; readonly label: string; readonly type: "text" | "date" }
  | {
      readonly name: string
      readonly label: string
      readonly type: "select"
      readonly options: ReadonlyArray<readonly [value: string, label: string]>
    }

const FilterControl = (props: {
  readonly field: FilterField
  readonly value: string
  readonly onApply: (event: Event) => void
}) => {
  const { field, value } = props
  const id = useId()
  return (
    <div class="field">
      <label for={id}>{field.label}</label>
      {field.type === "select" ? (
        <select id={id} name={field.name} value={value} onChange={props.onApply}>
          <option value="">Any</option>
          {field.options.map(([option, label]) => (
            <option key={option} value={option}>
              {label}
            </option>
          ))}
        </select>
      ) : field.type === "date" ? (
        <input id={id} name={field.name} type="date" defaultValue={value} onChange={props.onApply} />
      ) : (
        <input id={id} name={field.name} type="text" defaultValue={value} autoComplete="off" />
      )}
    </div>
  )
}

/**
 * Which drawing of the filter form to show. The form is drawn anew when the
 * URL's filter values change from elsewhere (back, forward, a link), so that
 * its fields show them; not when they change as the form itself asked, since
 * it shows them already (and a date being typed keeps its place).
 */
const useDrawing = (urlKey: string) => {
  const state = useRef({ urlKey, drawing: 0, asked: undefined as string | undefined })
  if (state.current.urlKey !== urlKey) {
    const asked = state.current.asked === urlKey
    state.current = { urlKey, drawing: state.current.drawing + (asked ? 0 : 1), asked: undefined }
  }
  return {
    drawing: state.current.drawing,
    asking: (key: string) => {
      state.current.asked = key
    }
  }
}

const isArchived = (query: URLSearchParams): boolean | undefined => {
  const value = query.get("is_archived")
  return value === "true" ? true : value === "false" ? false : undefined
}

/** The filters search and the list share: archived and the last message's day range. */
export const sharedFilters = (query: URLSearchParams) => {
  const flag = isArchived(query)
  return { ...(flag === undefined ? {} : { is_archived: flag }), ...dayRange(query) }
}

/**
 * A filter form: text fields apply on submit (Enter or Apply), selects and
 * dates as they change; every change starts at the first page.
 */
export const Filters = (props: {
  readonly label: string
  readonly fields: ReadonlyArray<FilterField>
  readonly query: URLSearchParams
}) => {
  const keyOf = (value: (name: string) => string | null | undefined) =>
    props.fields.map((field) => value(field.name) ?? "").join("\u0000")
  const { drawing, asking } = useDrawing(keyOf((name) => props.query.get(name)))
  const { form: formRef, keep } = useFormFocus(String(drawing))
  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form)
    const changes: Record<string, string | undefined> = {}
    for (const field of props.fields) {
      const value = data.get(field.name)
      changes[field.name] = typeof value === "string" ? value.trim() : undefined
    }
    asking(keyOf((name) => changes[name]))
    navigate(withQuery({ ...FIRST_PAGE, ...changes }))
  }
  const applyForm = (event: Event) => {
    const form = event.currentTarget instanceof Element ? event.currentTarget.closest("form") : null
    if (form) apply(form)
  }
  const clear = () => {
    // Drawn anew with empty fields: the focus goes back to Clear.
    keep()
    navigate(withQuery({ ...FIRST_PAGE, ...Object.fromEntries(props.fields.map((field) => [field.name, undefined])) }))
  }
  return (
    <form
      ref={formRef}
      key={drawing}
      class="filters"
      aria-label={props.label}
      onSubmit={(event) => {
        event.preventDefault()
        apply(event.currentTarget)
      }}
    >
      {props.fields.map((field) => (
        <FilterControl key={field.name} field={field} value={props.query.get(field.name) ?? ""} onApply={applyForm} />
      ))}
      <div class="actions">
        <button type="submit">Apply</button>
        <button type="button" class="quiet" onClick={clear}>
          Clear
        </button>
      </div>
    </form>
  )
}
