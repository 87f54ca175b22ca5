/** The project's threads: filtered and paged by the gateway, or the matches of a search. */
import type { DashboardThread } from "../../schema/Dashboard.js"
import { threadList } from "../data.js"
import { type FilterField, Filters, param } from "../filters.js"
import { useFormFocus } from "../focus.js"
import { formatCount } from "../format.js"
import { useLoad } from "../load.js"
import { FIRST_PAGE, readPaging } from "../paging.js"
import { href, navigate, type ViewProps, withQuery } from "../router.js"
import { type Column, KeysetTable } from "../table.js"
import { Clip, Show, Time, useTitle } from "../ui.js"
import { archived } from "./bits.js"
import { SearchResults } from "./SearchResults.js"

const FIELDS: ReadonlyArray<FilterField> = [
  { name: "user_id", label: "User", type: "text" },
  { name: "workspace_id", label: "Workspace", type: "text" },
  {
    name: "is_archived",
    label: "Archived",
    type: "select",
    options: [
      ["false", "Not archived"],
      ["true", "Archived"]
    ]
  },
  { name: "from", label: "Last message from", type: "date" },
  { name: "to", label: "Last message until", type: "date" }
]

const SearchBox = ({ q }: { readonly q: string }) => {
  const { form, keep } = useFormFocus(q)
  const search = (value: string | undefined) => {
    keep()
    navigate(withQuery({ q: value, ...FIRST_PAGE }))
  }
  return (
    <search>
      <form
        ref={form}
        key={q}
        class="search"
        onSubmit={(event) => {
          event.preventDefault()
          const value = new FormData(event.currentTarget).get("q")
          search(typeof value === "string" ? value.trim() : undefined)
        }}
      >
        <div class="field">
          <label for="thread-search">Search</label>
          <input id="thread-search" name="q" type="search" defaultValue={q} maxLength={256} />
        </div>
        <button type="submit">Find</button>
        {q ? (
          <button type="button" class="quiet" onClick={() => search(undefined)}>
            Show all threads
          </button>
        ) : null}
      </form>
    </search>
  )
}

const columns = (projectId: string): ReadonlyArray<Column<DashboardThread>> => [
  {
    title: "Title",
    wrap: "wide",
    cell: (thread) => <a href={href(projectId, "threads", thread.id)}>{thread.title || "Untitled thread"}</a>
  },
  { title: "User", cell: (thread) => <Clip text={thread.user_id} /> },
  { title: "Workspace", cell: (thread) => <Clip text={thread.workspace_id} /> },
  { title: "Messages", num: true, cell: (thread) => formatCount(thread.message_count) },
  { title: "Last message", cell: (thread) => <Time at={thread.last_message_at} /> },
  { title: "Archived", cell: (thread) => archived(thread.is_archived) }
]

const ThreadList = ({ projectId, query }: ViewProps) => {
  const paging = readPaging(query)
  const loaded = useLoad(threadList.key(projectId, query), threadList.load(projectId, query), threadList.early)
  return (
    <Show loaded={loaded} what="threads">
      {({ threads }) => (
        <KeysetTable
          label="Threads"
          columns={columns(projectId)}
          rows={threads}
          paging={paging}
          more={threadList.more(projectId, query)}
          moreKey={threadList.key(projectId, query)}
        />
      )}
    </Show>
  )
}

export const Threads = (props: ViewProps) => {
  useTitle("Threads")
  const q = param(props.query, "q")
  return (
    <>
      <h1>Threads</h1>
      <SearchBox q={q ?? ""} />
      <Filters label="Filters" fields={FIELDS} query={props.query} />
      {q ? <SearchResults {...props} q={q} /> : <ThreadList {...props} />}
    </>
  )
}
