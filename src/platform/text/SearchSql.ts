import type * as SqlClient from "@effect/sql/SqlClient"
import { indexText } from "./SearchText.js"

/**
 * The indexed form of a text, as SQL: `to_tsvector` over src/platform/text/SearchText.ts's
 * `indexText` in the `simple` configuration, weighted A for thread titles
 * (D, the default, for message text). A missing text is an empty vector;
 * the statement's text is the same either way (the bench replays the
 * repositories' statements, captured once).
 */
export const tsvectorOf = (sql: SqlClient.SqlClient, text: string | null | undefined, weight: "A" | "D" = "D") => {
  const indexed = text === null || text === undefined ? "" : indexText(text)
  return weight === "D"
    ? sql`to_tsvector('simple', ${indexed})`
    : sql`setweight(to_tsvector('simple', ${indexed}), 'A')`
}
