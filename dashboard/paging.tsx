/**
 * Server-side paging kept in the URL: `after` is the current page's cursor,
 * `prev` the stack of the cursors before it ("" for the first page), `limit`
 * the page size; a filter change starts again at page one (filters.tsx).
 */
import { useEffect, useRef } from "preact/hooks"
import { focusLost } from "./focus.js"
import { navigate, type QueryChanges, withQuery } from "./router.js"

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

export const FIRST_PAGE = { after: undefined, prev: undefined } as const

/** A list route's paging values: the page size and, past the first page, the cursor. */
export const pageParams = (paging: Paging) => ({
  limit: paging.limit,
  ...(paging.after ? { after: paging.after } : {})
})

/** A keyset page's next cursor: the last row's id when the page is full, else none (the last page). */
export const keysetNext = (rows: ReadonlyArray<{ readonly id: string }>, paging: Paging): string | undefined =>
  rows.length === paging.limit ? rows[rows.length - 1]?.id : undefined

type PagerControl = "previous" | "next" | "size"

/**
 * The pager control that moved to the page now in the URL: the pager goes
 * while the page loads, and the new one gives that control the focus back.
 */
let moved: { readonly url: string; readonly control: PagerControl } | undefined

const go = (control: PagerControl, changes: QueryChanges) => {
  const to = withQuery(changes)
  moved = { url: to, control }
  navigate(to)
}

export const Pager = (props: {
  readonly paging: Paging
  /** The next page's cursor, or undefined on the last page. */
  readonly next: string | undefined
  readonly label: string
  readonly sizes?: ReadonlyArray<number>
}) => {
  const { paging, next } = props
  const previousButton = useRef<HTMLButtonElement>(null)
  const nextButton = useRef<HTMLButtonElement>(null)
  const sizeSelect = useRef<HTMLSelectElement>(null)
  useEffect(() => {
    const last = moved
    moved = undefined
    if (!last || last.url !== location.pathname + location.search || !focusLost()) return
    // The control itself, else (now disabled: the first or the last page) the other way.
    const order =
      last.control === "size"
        ? [sizeSelect]
        : last.control === "next"
          ? [nextButton, previousButton]
          : [previousButton, nextButton]
    order
      .map((ref) => ref.current)
      .find((control) => control && !control.disabled)
      ?.focus()
  }, [])
  const previous = () => {
    const stack = [...paging.prev]
    const back = stack.pop()
    go("previous", { after: back || undefined, prev: stack })
  }
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button ref={previousButton} type="button" disabled={paging.after === undefined} onClick={previous}>
        Previous page
      </button>
      <button
        ref={nextButton}
        type="button"
        disabled={next === undefined}
        onClick={() => next && go("next", { after: next, prev: [...paging.prev, paging.after ?? ""] })}
      >
        Next page
      </button>
      <label class="inline">
        Rows per page
        <select
          ref={sizeSelect}
          value={String(paging.limit)}
          onChange={(event) => go("size", { limit: event.currentTarget.value, ...FIRST_PAGE })}
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
