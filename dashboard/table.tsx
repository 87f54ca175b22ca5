/**
 * The lists' tables, described by their columns: a header cell and a row
 * cell per column, the empty state in place of a table with no rows, and
 * the pager under a paged one.
 */
import type { ComponentChildren } from "preact"
import { useLoad } from "./load.js"
import { keysetNext, Pager, type Paging } from "./paging.js"
import { Empty, TableWrap } from "./ui.js"

export interface Column<R> {
  readonly title: string
  /** Figures: the header and the cells right-aligned. */
  readonly num?: true
  /** Cells that wrap instead of keeping to one line: a title, a search match. */
  readonly wrap?: "wide" | "snippet"
  readonly cell: (row: R) => ComponentChildren
}

export interface TableProps<R> {
  /** Names the table's scrolling region ("<label> table"), and its pager. */
  readonly label: string
  readonly columns: ReadonlyArray<Column<R>>
  readonly rows: ReadonlyArray<R>
  readonly rowKey: (row: R) => string
  /** Said instead of the table when there are no rows. */
  readonly empty: ComponentChildren
}

/** The rows as a table, or the empty state. */
export const Table = <R,>({ label, columns, rows, rowKey, empty }: TableProps<R>) =>
  rows.length === 0 ? (
    <Empty>{empty}</Empty>
  ) : (
    <TableWrap label={label}>
      <table>
        {/* The table's own name, for a screen reader's list of tables (the heading above says it to the eye). */}
        <caption class="sr-only">{label}</caption>
        <thead>
          <tr>
            {columns.map((column) => (
              <th key={column.title} scope="col" class={column.num ? "num" : undefined}>
                {column.title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
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

/** A page of a list: its table (or empty state), then the pager. */
export const PagedTable = <R,>(
  props: TableProps<R> & {
    readonly paging: Paging
    /** The next page's cursor, or undefined on the last page. */
    readonly next: string | undefined
  }
) => (
  <>
    <Table {...props} />
    <Pager paging={props.paging} label={props.label} next={props.next} />
  </>
)

/** A filtered list's empty state: nothing on this page past the first, or nothing at all. */
export const noneText = (paging: Paging, plural: string): string =>
  paging.after ? `No more ${plural}.` : `No ${plural} match these filters.`

/** Whether a row follows the cursor `after` under the list's filters: a page of one, asked for. */
export type MoreAfter = (after: string, signal: AbortSignal) => Promise<boolean>

/**
 * A page of a filtered list paged by its rows' ids (the last row's id is
 * the next page's cursor); the label, in lower case, names its rows when
 * there are none ("No runs match these filters."). A full page may be the
 * last one: `more` asks whether a row follows (`moreKey` names the list's
 * filters), and `Next page` waits for the answer; if the question fails,
 * the button is offered.
 */
export const KeysetTable = <R extends { readonly id: string }>(
  props: Omit<TableProps<R>, "rowKey" | "empty"> & {
    readonly paging: Paging
    readonly more: MoreAfter
    readonly moreKey: string
  }
) => {
  const full = keysetNext(props.rows, props.paging)
  const probed = useLoad(full === undefined ? undefined : `${props.moreKey}|${full}`, (signal) =>
    props.more(full ?? "", signal)
  )
  const next =
    full === undefined || probed.state === "loading" || (probed.state === "ok" && !probed.value) ? undefined : full
  return (
    <PagedTable
      {...props}
      rowKey={(row) => row.id}
      empty={noneText(props.paging, props.label.toLowerCase())}
      next={next}
    />
  )
}
