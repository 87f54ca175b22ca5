/** The threads a search matched, each with its snippet, the matched terms marked. */
import type { ComponentChildren } from "preact"
import type { SearchHit } from "../../schema/Search.js"
import { client, run } from "../api.js"
import { sharedFilters } from "../filters.js"
import { useLoad } from "../load.js"
import { readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { type Column, PagedTable } from "../table.js"
import { Show, Time } from "../ui.js"
import { archived } from "./bits.js"

/**
 * The snippet's text with each highlight ([start, end) in UTF-16 code units)
 * as a <mark>: text nodes only, never markup made of the text.
 */
export const Highlighted = (props: {
  readonly text: string
  readonly highlights: ReadonlyArray<readonly [number, number]>
}) => {
  const { text } = props
  const ranges = [...props.highlights]
    .map(([start, end]) => [Math.max(0, start), Math.min(text.length, end)] as const)
    .filter(([start, end]) => end > start)
    .sort((a, b) => a[0] - b[0])
  const pieces: Array<ComponentChildren> = []
  let at = 0
  for (const [start, end] of ranges) {
    if (end <= at) continue
    const from = Math.max(start, at)
    if (from > at) pieces.push(text.slice(at, from))
    pieces.push(<mark key={from}>{text.slice(from, end)}</mark>)
    at = end
  }
  if (at < text.length) pieces.push(text.slice(at))
  return <>{pieces}</>
}

const columns = (projectId: string): ReadonlyArray<Column<typeof SearchHit.Type>> => [
  {
    title: "Thread",
    cell: (hit) => (
      <a href={href(projectId, "threads", hit.thread.id, { message: hit.message_id ?? undefined })}>
        {hit.thread.title || "Untitled thread"}
      </a>
    )
  },
  {
    title: "Match",
    wrap: "snippet",
    cell: (hit) => <Highlighted text={hit.snippet.text} highlights={hit.snippet.highlights} />
  },
  { title: "Last message", cell: (hit) => <Time at={hit.thread.last_message_at} /> },
  { title: "Archived", cell: (hit) => archived(hit.thread.is_archived) }
]

export const SearchResults = ({ projectId, query, q }: ViewProps & { readonly q: string }) => {
  const paging = readPaging(query)
  const offset = Number(paging.after ?? "0")
  const urlParams = {
    q,
    limit: paging.limit,
    offset: Number.isSafeInteger(offset) && offset > 0 ? offset : 0,
    ...sharedFilters(query)
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.search({ path: { project_id: projectId }, urlParams }), { signal })
  )
  const ignored = query.get("user_id") || query.get("workspace_id")
  return (
    <section aria-labelledby="matches-heading">
      <h2 id="matches-heading">Threads matching “{q}”</h2>
      {ignored ? <p class="hint">The user and workspace filters do not narrow a text search.</p> : null}
      <Show loaded={loaded} what="the matching threads">
        {({ results, next_offset }) => (
          <PagedTable
            label="Matching threads"
            columns={columns(projectId)}
            rows={results}
            rowKey={(hit) => hit.thread.id}
            empty={<>No thread matches “{q}”.</>}
            paging={paging}
            next={next_offset === null ? undefined : String(next_offset)}
          />
        )}
      </Show>
    </section>
  )
}
