/** The project's threads: filtered and paged by the gateway, or the matches of a search. */
import { client, run } from "../api.js"
import { formatCount } from "../format.js"
import { useLoad } from "../load.js"
import { FIRST_PAGE, type FilterField, Filters, Pager, param, readPaging } from "../paging.js"
import { href, navigate, type ViewProps, withQuery } from "../router.js"
import { Badge, Clip, Empty, Show, TableWrap, Time, useTitle } from "../ui.js"
import { SearchResults, sharedFilters } from "./SearchResults.js"

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

const SearchBox = ({ q }: { readonly q: string }) => (
  <search>
    <form
      key={q}
      class="search"
      onSubmit={(event) => {
        event.preventDefault()
        const value = new FormData(event.currentTarget).get("q")
        navigate(withQuery({ q: typeof value === "string" ? value.trim() : undefined, ...FIRST_PAGE }))
      }}
    >
      <div class="field">
        <label for="thread-search">Search</label>
        <input id="thread-search" name="q" type="search" defaultValue={q} maxLength={256} />
      </div>
      <button type="submit">Find</button>
      {q ? (
        <button type="button" class="quiet" onClick={() => navigate(withQuery({ q: undefined, ...FIRST_PAGE }))}>
          Show all threads
        </button>
      ) : null}
    </form>
  </search>
)

const ThreadList = ({ projectId, query }: ViewProps) => {
  const paging = readPaging(query)
  const user = param(query, "user_id")
  const workspace = param(query, "workspace_id")
  const urlParams = {
    limit: paging.limit,
    ...(paging.after ? { after: paging.after } : {}),
    ...(user ? { user_id: user } : {}),
    ...(workspace ? { workspace_id: workspace } : {}),
    ...sharedFilters(query)
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.dashboard.threads({ path: { project_id: projectId }, urlParams }), { signal })
  )
  return (
    <Show loaded={loaded} what="threads">
      {({ threads }) => (
        <>
          {threads.length === 0 ? (
            <Empty>{paging.after ? "No more threads." : "No threads match these filters."}</Empty>
          ) : (
            <TableWrap label="Threads">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Title</th>
                    <th scope="col">User</th>
                    <th scope="col">Workspace</th>
                    <th scope="col" class="num">
                      Messages
                    </th>
                    <th scope="col">Last message</th>
                    <th scope="col">Archived</th>
                  </tr>
                </thead>
                <tbody>
                  {threads.map((thread) => (
                    <tr key={thread.id}>
                      <td class="wide">
                        <a href={href(projectId, "threads", thread.id)}>{thread.title || "Untitled thread"}</a>
                      </td>
                      <td>
                        <Clip text={thread.user_id} />
                      </td>
                      <td>
                        <Clip text={thread.workspace_id} />
                      </td>
                      <td class="num">{formatCount(thread.message_count)}</td>
                      <td>
                        <Time at={thread.last_message_at} />
                      </td>
                      <td>{thread.is_archived ? <Badge>Archived</Badge> : "No"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager
            paging={paging}
            label="Threads"
            next={threads.length === paging.limit ? threads[threads.length - 1]?.id : undefined}
          />
        </>
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
