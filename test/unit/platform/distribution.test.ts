/**
 * The schema can be sharded by project (issue 28, docs/operations.md
 * "Sharding by project"): read from the catalogue of a store with every
 * migration applied, each table is either named in UNDISTRIBUTED_TABLES or
 * distributable by `project_id` (not null; the primary key and every unique
 * index start with it; every foreign key includes it and points at a
 * distributed or reference table), and reference tables refer only to
 * reference tables.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { UNDISTRIBUTED_TABLES } from "../../../src/platform/db/Distribution.js"
import { type StartedGateway, startGateway, stores } from "../../support/layers.js"

interface Table {
  readonly name: string
  /** project_id's NOT NULL, or null without the column. */
  readonly project_id_not_null: boolean | null
}
interface UniqueIndex {
  readonly table: string
  readonly index: string
  readonly first_column: string | null
  readonly definition: string
}
interface ForeignKey {
  readonly table: string
  readonly name: string
  readonly target: string
  readonly includes_project: boolean
  readonly definition: string
}

describe.each(stores)("tables distributable by project ($name)", (storeUnderTest) => {
  let gateway: StartedGateway
  let drop = async () => {}
  let tables: ReadonlyArray<Table>
  let uniques: ReadonlyArray<UniqueIndex>
  let foreignKeys: ReadonlyArray<ForeignKey>

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    drop = made.drop
    gateway = await startGateway(made.store)
    tables = await gateway.sql<Table>(`
      SELECT c.relname AS name,
        (SELECT a.attnotnull FROM pg_attribute a
          WHERE a.attrelid = c.oid AND a.attname = 'project_id' AND NOT a.attisdropped) AS project_id_not_null
      FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
      ORDER BY c.relname`)
    uniques = await gateway.sql<UniqueIndex>(`
      SELECT c.relname AS table, i.relname AS index,
        (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = c.oid AND a.attnum = x.indkey[0]) AS first_column,
        pg_get_indexdef(x.indexrelid) AS definition
      FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid
      WHERE c.relnamespace = 'public'::regnamespace AND x.indisunique`)
    foreignKeys = await gateway.sql<ForeignKey>(`
      SELECT conrelid::regclass::text AS table, conname AS name, confrelid::regclass::text AS target,
        EXISTS (SELECT 1 FROM unnest(conkey) k JOIN pg_attribute a ON a.attrelid = conrelid AND a.attnum = k
          WHERE a.attname = 'project_id') AS includes_project,
        pg_get_constraintdef(oid) AS definition
      FROM pg_constraint WHERE contype = 'f' AND connamespace = 'public'::regnamespace`)
  })
  afterAll(async () => {
    await gateway?.close()
    await drop()
  })

  const distributed = (table: string) => UNDISTRIBUTED_TABLES[table] === undefined

  it("reads a schema of many tables, and names only tables it has", () => {
    expect(tables.length).toBeGreaterThan(30)
    const names = new Set(tables.map((table) => table.name))
    expect(Object.keys(UNDISTRIBUTED_TABLES).filter((name) => !names.has(name))).toEqual([])
    // The rule has something to hold: the tables that carry the data are distributed.
    for (const name of ["threads", "messages", "runs", "spans", "traces", "scores", "events", "webhook_deliveries"]) {
      expect(distributed(name), name).toBe(true)
    }
  })

  it("every distributed table has project_id, not null", () => {
    const broken = tables.filter((table) => distributed(table.name) && table.project_id_not_null !== true)
    expect(broken.map((table) => table.name)).toEqual([])
  })

  it("every primary key and unique index of a distributed table starts with project_id", () => {
    const broken = uniques.filter((unique) => distributed(unique.table) && unique.first_column !== "project_id")
    expect(broken.map((unique) => unique.definition)).toEqual([])
  })

  it("every foreign key of a distributed table includes project_id and points at a distributed or reference table", () => {
    const broken = foreignKeys.filter(
      (key) => distributed(key.table) && (!key.includes_project || UNDISTRIBUTED_TABLES[key.target] === "coordinator")
    )
    expect(broken.map((key) => `${key.table}: ${key.definition}`)).toEqual([])
  })

  it("a reference table refers only to reference tables", () => {
    const broken = foreignKeys.filter(
      (key) => UNDISTRIBUTED_TABLES[key.table] === "reference" && UNDISTRIBUTED_TABLES[key.target] !== "reference"
    )
    expect(broken.map((key) => `${key.table}: ${key.definition}`)).toEqual([])
  })
})
