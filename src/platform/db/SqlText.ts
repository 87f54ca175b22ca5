/**
 * Timestamps as the wire writes them (docs/api-and-auth.md "REST API": ISO
 * 8601 UTC with milliseconds), made by the database, for pages written
 * straight from its text. The one place this format is spelled in SQL.
 */
export const isoTimestampSql = (column: string): string =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
