/**
 * Server-side paging and filtering kept in the URL: `after` is the current
 * page's cursor, `prev` the stack of the cursors before it ("" for the first
 * page), `limit` the page size; a filter change starts again at page one.
 */
import { useId } from "preact/hooks"
import { navigate, withQuery } from "./router.js"

export interface Paging {
  readonly after: string | undefined
  readonly prev: ReadonlyArray<string>
  readonly limit: number
}

export const PAGE_SIZES = [25, 50, 100] as const

export const readPaging = (
  query: URLSearchParams,
  fallback = 50,
  sizes: ReadonlyArray<number> = PAGE_SIZES
): Paging => {
  const limit = Number(query.get("limit"))
  return {
    after: query.get("after") || undefined,
    prev: query.getAll("prev"),
    limit: sizes.includes(limit) ? limit : fallback
  }
}

/** The value of a text filter in the URL, or undefined. */
export const param = (query: URLSearchParams, name: string): string | undefined => query.get(name)?.trim() || undefined

export const FIRST_PAGE = { after: undefined, prev: undefined } as const

export const Pager = (props: {
  readonly paging: Paging
  /** The next page's cursor, or undefined on the last page. */
  readonly next: string | undefined
  readonly label: string
  readonly sizes?: ReadonlyArray<number>
}) => {
  const { paging, next } = props
  const previous = () => {
    const stack = [...paging.prev]
    const back = stack.pop()
    navigate(withQuery({ after: back || undefined, prev: stack }))
  }
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={paging.after === undefined} onClick={previous}>
        Previous page
      </button>
      <button
        type="button"
        disabled={next === undefined}
        onClick={() => next && navigate(withQuery({ after: next, prev: [...paging.prev, paging.after ?? ""] }))}
      >
        Next page
      </button>
      <label class="inline">
        Rows per page
        <select
          value={String(paging.limit)}
          onChange={(event) => navigate(withQuery({ limit: event.currentTarget.value, ...FIRST_PAGE }))}
        >
          {(props.sizes ?? PAGE_SIZES).map((size) => (
            <option key={size} value={String(size)}>
              {size}
            </option>
          ))}
        </select>
      </label>
    </nav>
  )
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
 * A filter form: text fields apply on submit (Enter or Apply), selects and
 * dates as they change; every change starts at the first page.
 */
export const Filters = (props: {
  readonly label: string
  readonly fields: ReadonlyArray<FilterField>
  readonly query: URLSearchParams
}) => {
  const apply = (form: HTMLFormElement) => {
    const data = new FormData(form)
    const changes: Record<string, string | undefined> = { ...FIRST_PAGE }
    for (const field of props.fields) {
      const value = data.get(field.name)
      changes[field.name] = typeof value === "string" ? value.trim() : undefined
    }
    navigate(withQuery(changes))
  }
  const applyForm = (event: Event) => {
    const form = event.currentTarget instanceof Element ? event.currentTarget.closest("form") : null
    if (form) apply(form)
  }
  const clear = () => {
    const changes: Record<string, undefined> = { ...FIRST_PAGE }
    for (const field of props.fields) changes[field.name] = undefined
    navigate(withQuery(changes))
  }
  // Keyed by the URL's values: back and forward reset the fields to what the URL says.
  const key = props.fields.map((field) => props.query.get(field.name) ?? "").join("\u0000")
  return (
    <form
      key={key}
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
