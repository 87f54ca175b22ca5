/**
 * What the operating views share: a table named by its caption, a list
 * loaded again after a change (the rows kept meanwhile, so the button
 * pressed keeps its place and focus), the note a key's session gets instead
 * of calls the gateway would refuse, and a form's values checked by the
 * payload's own schema before they go, refused in words.
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { ComponentChildren } from "preact"
import { useRef, useState } from "preact/hooks"
import type { CallError } from "../../api.js"
import type { Loaded } from "../../load.js"
import type { Column } from "../../table.js"
import { Empty, TableWrap } from "../../ui.js"

/** Rows as a table whose caption names it (and its scrolling region), or `empty` in words. */
export const CaptionTable = <R,>(props: {
  readonly caption: string
  readonly columns: ReadonlyArray<Column<R>>
  readonly rows: ReadonlyArray<R>
  readonly rowKey: (row: R) => string
  readonly empty: ComponentChildren
  /** The table's own class, beside `operate-table`. */
  readonly tableClass?: string
}) =>
  props.rows.length === 0 ? (
    <Empty>{props.empty}</Empty>
  ) : (
    <TableWrap label={props.caption}>
      <table class={props.tableClass ? `operate-table ${props.tableClass}` : "operate-table"}>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => (
              <th key={column.title} scope="col" class={column.num ? "num" : undefined}>
                {column.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((row) => (
            <tr key={props.rowKey(row)}>
              {props.columns.map((column) => (
                <td key={column.title} class={column.num ? "num" : column.wrap}>
                  {column.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  )

/** A counter to put in a load's key: `reload()` asks again. */
export const useVersion = (): readonly [number, () => void] => {
  const [version, setVersion] = useState(0)
  return [version, () => setVersion((n) => n + 1)]
}

/**
 * The last value loaded for `base` while the same list loads again (after a
 * change): the table stays, its rows keyed, instead of "Loading" in between.
 */
export const useKept = <A,>(loaded: Loaded<A>, base: string): Loaded<A> => {
  const kept = useRef<{ readonly base: string; readonly value: A } | undefined>(undefined)
  if (loaded.state === "ok") kept.current = { base, value: loaded.value }
  else if (loaded.state === "loading" && kept.current?.base === base) return { state: "ok", value: kept.current.value }
  else if (loaded.state === "error") kept.current = undefined
  return loaded
}

/** What a project key's session sees in an admin's view: the gateway would answer 403, so nothing is asked. */
export const AdminOnly = ({ what }: { readonly what: string }) => (
  <p class="state">{what} is for an admin session: sign in with the admin token to use it.</p>
)

/** "1 thread", "2 threads". */
export const counted = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** A refusal in words, thrown from a change so that its form shows it (forms.tsx `useAction`). */
export const refusal = (message: string): CallError => ({ status: undefined, message, unauthorized: false })

/** Where a value is wrong, before the words of what is wrong: its field ("threshold: "), or nothing at the top. */
export const fieldOf = (path: ReadonlyArray<PropertyKey>): string => (path.length === 0 ? "" : `${path.join(".")}: `)

/**
 * `value` decoded by `schema` (a payload's schema), or a refusal thrown in
 * its words: the first issue, after what `where` says of its path (a field,
 * a list's item; nothing by default). The client would refuse it anyway,
 * but in the schema's words only here.
 */
export const checked = <A, I>(
  schema: Schema.Schema<A, I>,
  value: unknown,
  where: (path: ReadonlyArray<PropertyKey>) => string = () => ""
): A => {
  const result = Schema.decodeUnknownEither(schema, { errors: "first" })(value)
  if (Either.isRight(result)) return result.right
  const issue = ParseResult.ArrayFormatter.formatErrorSync(result.left)[0]
  throw refusal(issue ? `${where(issue.path)}${issue.message}` : "A value is not valid.")
}
