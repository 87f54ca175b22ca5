/** Small pieces every view uses: times, states, tables, links. */
import type { ComponentChildren } from "preact"
import { useEffect } from "preact/hooks"
import type { CallError } from "./api.js"
import { formatCount, formatTime, isoTime } from "./format.js"
import type { Loaded } from "./load.js"

/** A time in the browser's zone; the UTC ISO value in its title. */
export const Time = ({ at }: { readonly at: Date | null | undefined }) => {
  if (!at) return <span>—</span>
  const iso = isoTime(at)
  return (
    <time dateTime={iso} title={iso}>
      {formatTime(at)}
    </time>
  )
}

export const Loading = ({ what }: { readonly what: string }) => (
  <p class="state" role="status">
    Loading {what}…
  </p>
)

export const Empty = ({ children }: { readonly children: ComponentChildren }) => <p class="state empty">{children}</p>

export const ErrorText = ({ error, what }: { readonly error: CallError; readonly what?: string }) => (
  <p class="state error" role="alert">
    {what ? `Could not load ${what}: ` : ""}
    {error.message}
  </p>
)

/**
 * The usual three states around a loaded value: loading, the error in words,
 * else `children(value)`.
 */
export const Show = <A,>(props: {
  readonly loaded: Loaded<A>
  readonly what: string
  readonly children: (value: A) => ComponentChildren
}) => {
  const { loaded } = props
  if (loaded.state === "loading") return <Loading what={props.what} />
  if (loaded.state === "error") return <ErrorText error={loaded.error} what={props.what} />
  return <>{props.children(loaded.value)}</>
}

/** A table that scrolls sideways on a narrow screen (focusable, so the keyboard can scroll it). */
export const TableWrap = ({ label, children }: { readonly label: string; readonly children: ComponentChildren }) => (
  // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard
  <section class="table-wrap" aria-label={`${label} table`} tabIndex={0}>
    {children}
  </section>
)

/** The document's title follows the view. */
export const useTitle = (title: string): void => {
  useEffect(() => {
    document.title = `${title} · svc dashboard`
  }, [title])
}

/** A short id for a table cell, the whole one in its title. */
export const ShortId = ({ id }: { readonly id: string }) => (
  <code class="id" title={id}>
    {id.length > 14 ? `${id.slice(0, 6)}…${id.slice(-6)}` : id}
  </code>
)

export const Badge = ({ tone, children }: { readonly tone?: string; readonly children: ComponentChildren }) => (
  <span class={tone ? `badge ${tone}` : "badge"}>{children}</span>
)

/** Term and value pairs: an item's facts, or ("totals") a period's figures. */
export const Facts = ({
  items,
  kind = "facts"
}: {
  readonly items: ReadonlyArray<readonly [string, ComponentChildren]>
  readonly kind?: "facts" | "totals"
}) => (
  <dl class={kind}>
    {items.map(([term, value]) => (
      <div key={term}>
        <dt>{term}</dt>
        <dd>{value}</dd>
      </div>
    ))}
  </dl>
)

/** Where there is no value: a muted dash. */
export const Dash = () => <span class="muted">—</span>

/** A link, or a dash where there is nothing to link to. */
export const OptionalLink = ({
  to,
  children
}: {
  readonly to: string | undefined
  readonly children: ComponentChildren
}) => (to === undefined ? <Dash /> : <a href={to}>{children}</a>)

/** A link showing a short id, or a dash where there is no id. */
export const IdLink = ({ id, to }: { readonly id: string | null; readonly to: (id: string) => string }) =>
  id ? (
    <a href={to(id)}>
      <ShortId id={id} />
    </a>
  ) : (
    <Dash />
  )

/** Free text cut to the cell's width by CSS, the whole of it in its title. */
export const Clip = ({ text }: { readonly text: string | null | undefined }) =>
  text ? (
    <span class="clip" title={text}>
      {text}
    </span>
  ) : (
    <Dash />
  )

/** Past this many characters a value starts folded, so one huge tool result does not bury the page. */
const LONG_TEXT = 4000

/** Preformatted text (JSON, tool output), wrapped to the width; a long one behind a disclosure. */
export const Code = ({ text }: { readonly text: string }) =>
  text.length > LONG_TEXT ? (
    <details class="long">
      <summary>Long value: {formatCount(text.length)} characters</summary>
      <pre class="json">{text}</pre>
    </details>
  ) : (
    <pre class="json">{text}</pre>
  )
