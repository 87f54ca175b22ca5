/**
 * `npx tsx bench/heap-diff.ts OLD.heapsnapshot NEW.heapsnapshot [TYPE:NAME]`: what a V8 heap gained between two
 * snapshots of one process (the soak writes them with SOAK_HEAP_SNAPSHOTS). Prints the object classes whose
 * self size changed most; with TYPE:NAME (say `object:Array`), the retainer chains most of the objects of that
 * class new in NEW share (the path that keeps them), the way the soak found its gateways' source maps.
 */
import { readFileSync } from "node:fs"

interface Snapshot {
  readonly snapshot: {
    readonly meta: {
      readonly node_fields: ReadonlyArray<string>
      readonly node_types: readonly [ReadonlyArray<string>, ...ReadonlyArray<unknown>]
      readonly edge_fields: ReadonlyArray<string>
      readonly edge_types: readonly [ReadonlyArray<string>, ...ReadonlyArray<unknown>]
    }
  }
  readonly nodes: ReadonlyArray<number>
  readonly edges: ReadonlyArray<number>
  readonly strings: ReadonlyArray<string>
}

const read = (file: string) => {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot
  const { meta } = s.snapshot
  const nf = meta.node_fields.length
  const field = (name: string) => meta.node_fields.indexOf(name)
  const [type, name, id, size, edgeCount] = ["type", "name", "id", "self_size", "edge_count"].map(field)
  const count = s.nodes.length / nf
  const at = (n: number, f: number | undefined) => s.nodes[n * nf + (f ?? 0)] ?? 0
  const typeOf = (n: number) => meta.node_types[0][at(n, type)] ?? "?"
  const strings = new Set(["string", "concatenated string", "sliced string"])
  const label = (n: number) =>
    `${typeOf(n)}:${strings.has(typeOf(n)) ? "(string)" : (s.strings[at(n, name)] ?? "").slice(0, 60)}`
  return { s, meta, nf, count, at, typeOf, label, id, size, edgeCount }
}

const [oldFile, newFile, wanted] = process.argv.slice(2)
if (oldFile === undefined || newFile === undefined) {
  console.error("usage: npx tsx bench/heap-diff.ts OLD.heapsnapshot NEW.heapsnapshot [TYPE:NAME]")
  process.exit(2)
}
const before = read(oldFile)
const after = read(newFile)

const classes = (h: ReturnType<typeof read>) => {
  const sizes = new Map<string, { n: number; bytes: number }>()
  let total = 0
  for (let n = 0; n < h.count; n++) {
    const entry = sizes.get(h.label(n)) ?? { n: 0, bytes: 0 }
    entry.n++
    entry.bytes += h.at(n, h.size)
    total += h.at(n, h.size)
    sizes.set(h.label(n), entry)
  }
  return { sizes, total }
}
const a = classes(before)
const b = classes(after)
const mb = (bytes: number) => (bytes / 1e6).toFixed(2)
console.log(`objects' self size ${mb(a.total)} -> ${mb(b.total)} MB`)
const rows = [...new Set([...a.sizes.keys(), ...b.sizes.keys()])].map((key) => {
  const from = a.sizes.get(key) ?? { n: 0, bytes: 0 }
  const to = b.sizes.get(key) ?? { n: 0, bytes: 0 }
  return { class: key, "kB change": Math.round((to.bytes - from.bytes) / 1000), "count change": to.n - from.n }
})
rows.sort((x, y) => Math.abs(y["kB change"]) - Math.abs(x["kB change"]))
console.table(rows.slice(0, 25))

if (wanted !== undefined) {
  const old = new Set<number>()
  for (let n = 0; n < before.count; n++) old.add(before.at(n, before.id))
  const h = after
  const ef = h.meta.edge_fields.length
  const [edgeType, edgeName, toNode] = ["type", "name_or_index", "to_node"].map((f) => h.meta.edge_fields.indexOf(f))
  // Who holds each node (weak edges left out: they keep nothing).
  const holders: Array<Array<{ from: number; via: string }>> = Array.from({ length: h.count }, () => [])
  for (let n = 0, e = 0; n < h.count; n++) {
    for (let k = 0; k < h.at(n, h.edgeCount); k++, e += ef) {
      const kind = h.meta.edge_types[0][h.s.edges[e + (edgeType ?? 0)] ?? 0] ?? "?"
      if (kind === "weak") continue
      const indexed = kind === "element" || kind === "hidden" || kind === "internal"
      const via = `${kind}:${indexed ? "[]" : (h.s.strings[h.s.edges[e + (edgeName ?? 0)] ?? 0] ?? "")}`
      holders[(h.s.edges[e + (toNode ?? 0)] ?? 0) / h.nf]?.push({ from: n, via })
    }
  }
  const chains = new Map<string, number>()
  let found = 0
  for (let n = 0; n < h.count; n++) {
    if (h.label(n) !== wanted || old.has(h.at(n, h.id))) continue
    found++
    const path: Array<string> = []
    const seen = new Set([n])
    for (let node = n, depth = 0; depth < 7; depth++) {
      const holder = holders[node]?.find((x) => !seen.has(x.from))
      if (holder === undefined) break
      path.push(`${holder.via} <- ${h.label(holder.from)}`)
      seen.add(holder.from)
      node = holder.from
    }
    const key = path.join("\n    ")
    chains.set(key, (chains.get(key) ?? 0) + 1)
  }
  console.log(`\n${found} ${wanted} new in ${newFile}; the chains that hold most of them:`)
  for (const [chain, n] of [...chains].sort((x, y) => y[1] - x[1]).slice(0, 5)) console.log(`${n}x\n    ${chain}`)
}
