/**
 * Full-text search over a project's threads: titles and message text
 * (src/platform/text/SearchText.ts says what is indexed and how a query is read). The
 * project read API and MCP search the whole project; the thread API the
 * caller's workspace.
 */
import * as Effect from "effect/Effect"
import { Limits } from "../../schema/Limits.js"
import type { SearchQuery } from "../../schema/Search.js"
import { fn } from "../platform/telemetry/Traced.js"
import { messageText, parseQuery, snippetOf } from "../platform/text/SearchText.js"
import { SearchRepo, type SearchRow } from "./SearchRepo.js"

/** Where a search looks: a project, or one workspace of it. */
export interface SearchScope {
  readonly projectId: string
  readonly workspaceId?: string | undefined
}

const hitJson = (row: SearchRow, terms: ReadonlyArray<string>): string => {
  let text = ""
  if (row.format !== null && row.content !== null) text = messageText(row.format, JSON.parse(row.content))
  const snippet = snippetOf(text.trim() === "" ? (row.title ?? "") : text, terms)
  return `{"thread":${row.thread},"score":${JSON.stringify(row.score)},"message_id":${JSON.stringify(row.message_id)},"snippet":${JSON.stringify(snippet)}}`
}

export class Search extends Effect.Service<Search>()("svc/Search", {
  dependencies: [SearchRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SearchRepo

    /** A page of matching threads, best first, as the JSON text of SearchResults. */
    const threadsJson = fn("Search.threadsJson")(function* (scope: SearchScope, query: SearchQuery) {
      const parsed = parseQuery(query.q)
      // Nothing to look for (operators only, or exclusions only): nothing matches.
      if (parsed.terms.length === 0) return `{"results":[],"next_offset":null}`
      const rows = yield* repo.search({
        projectId: scope.projectId,
        workspaceId: scope.workspaceId,
        tsquery: parsed.tsquery,
        rankquery: parsed.rankquery,
        isArchived: query.is_archived,
        from: query.from,
        to: query.to,
        limit: query.limit,
        offset: query.offset
      })
      const next = query.offset + rows.length
      const more = rows.length === query.limit && next <= Limits.search.offsetMax
      return `{"results":[${rows.map((row) => hitJson(row, parsed.terms)).join(",")}],"next_offset":${more ? next : null}}`
    })

    return { threadsJson } as const
  })
}) {}
