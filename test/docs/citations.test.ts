/**
 * Comments cite the project's own documentation, never a file outside the
 * repository (issue 23): no "§" and a section number, no part of the
 * specification and no other file a reader of this repository does not
 * have (the forms are listed in OUTSIDE below). A citation is
 * a page and one of its headings, `docs/decisions.md "Webhooks"` (several:
 * `docs/decisions.md "Tenancy", "Service-issued tokens"`), and each heading
 * must be a `#`, `##` or `###` heading of that page, so that renaming a
 * section breaks this test rather than the comments' pointers.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

/** The source trees whose comments are read; `dashboard` only once it exists. */
const SOURCE_ROOTS = [
  "schema",
  "src",
  "protocols",
  "app",
  "sdk",
  "test",
  "bench",
  "scripts",
  "examples",
  "bin",
  "dashboard"
]
const SOURCE_EXTENSIONS = [".ts", ".mjs", ".tsx"]
/** Built output and installed packages are not ours to comment. */
const SKIPPED = new Set(["sdk/dist", "node_modules"])

/** Every source file under the roots, relative to `base`, sorted. */
const sourceFiles = (base: string): Array<string> => {
  const out: Array<string> = []
  const walk = (relative: string): void => {
    for (const entry of fs.readdirSync(path.join(base, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`
      if (SKIPPED.has(child) || SKIPPED.has(entry.name)) continue
      if (entry.isDirectory()) walk(child)
      else if (SOURCE_EXTENSIONS.some((extension) => entry.name.endsWith(extension))) out.push(child)
    }
  }
  for (const top of SOURCE_ROOTS) if (fs.existsSync(path.join(base, top))) walk(top)
  return out.sort()
}

/** The `#`, `##` and `###` headings of a Markdown page, outside fenced code (where `# ...` is a shell comment). */
const headingsOf = (markdown: string): ReadonlySet<string> => {
  const headings = new Set<string>()
  let fence: string | undefined
  for (const line of markdown.split("\n")) {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(line)
    if (opening?.[1] !== undefined) {
      const marker = opening[1]
      if (fence === undefined) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      continue
    }
    if (fence !== undefined) continue
    const heading = /^\s{0,3}#{1,3}\s+(.*?)\s*#*\s*$/.exec(line)
    if (heading?.[1] !== undefined) headings.add(heading[1])
  }
  return headings
}

/** Where a comment wraps: a line break and the next line's ` * ` or `// `. */
const WRAP = String.raw`(?:\s*\n\s*(?:\*(?!/)|//)?)?\s*`
/** `docs/<page>.md "Heading"`, the comma form `docs/<page>.md, "Heading"` too; a heading may wrap. */
const CITATION = new RegExp(String.raw`docs/([\w-]+)\.md,?(?=\s)${WRAP}"([^"]{1,160})"`, "g")
/** A further heading of the same page: `, "Other"` or `and "Other"`. */
const MORE = new RegExp(String.raw`^${WRAP}(?:,|and\b)${WRAP}"([^"]{1,160})"`)
/** A section sign and a number: the numbering of a file outside the repository. */
const SECTION_NUMBER = /§\s?\d+/g
/**
 * Other pointers to files outside the repository: a part of the specification,
 * its files by name, the decisions kept beside it, the architecture file there
 * (docs/architecture.md is ours). Written so that this file's text matches none.
 */
const OUTSIDE: ReadonlyArray<RegExp> = [
  /\bspec\s+parts?\s+\d/gi,
  /\binterface-spec\b/gi,
  /\binterface\sspec\b/g,
  /\bshared\/spec\b/gi,
  /\bclient-behaviou?r\b/gi,
  /\bshared\s+decisions\b/gi,
  /(?<!docs\/)\bARCHITECTURE\.md\b/g
]

/** A heading as cited, with the comment's wrapping undone. */
const unwrapped = (cited: string): string =>
  cited
    .replace(/\s*\n\s*(?:\*(?!\/)|\/\/)?\s*/g, " ")
    .replace(/\s+/g, " ")
    .trim()

/**
 * Each problem of one source file, as `file:line: what`. `pageHeadings`
 * answers a page's headings (`decisions` for docs/decisions.md), or
 * undefined when there is no such page.
 */
const citationProblems = (
  file: string,
  source: string,
  pageHeadings: (page: string) => ReadonlySet<string> | undefined
): Array<string> => {
  const lineAt = (offset: number): number => source.slice(0, offset).split("\n").length
  const problems: Array<{ readonly offset: number; readonly text: string }> = []
  for (const match of source.matchAll(SECTION_NUMBER)) {
    problems.push({
      offset: match.index,
      text: `"${match[0]}" numbers a section of a file outside the repository; cite docs/<page>.md "Heading"`
    })
  }
  for (const pattern of OUTSIDE) {
    for (const match of source.matchAll(pattern)) {
      problems.push({
        offset: match.index,
        text: `"${match[0]}" points outside the repository; cite docs/<page>.md "Heading"`
      })
    }
  }
  for (const match of source.matchAll(CITATION)) {
    const page = match[1] ?? ""
    const cited = [match[2] ?? ""]
    let rest = source.slice(match.index + match[0].length)
    for (let more = MORE.exec(rest); more !== null; more = MORE.exec(rest)) {
      cited.push(more[1] ?? "")
      rest = rest.slice(more[0].length)
    }
    const headings = pageHeadings(page)
    if (headings === undefined) {
      problems.push({ offset: match.index, text: `docs/${page}.md: no such page` })
      continue
    }
    for (const heading of cited.map(unwrapped)) {
      if (!headings.has(heading)) {
        problems.push({ offset: match.index, text: `docs/${page}.md has no heading "${heading}"` })
      }
    }
  }
  return problems.sort((a, b) => a.offset - b.offset).map(({ offset, text }) => `${file}:${lineAt(offset)}: ${text}`)
}

/** The pages under docs/ of `base`, read once each. */
const docsPages = (base: string) => {
  const cache = new Map<string, ReadonlySet<string> | undefined>()
  return (page: string): ReadonlySet<string> | undefined => {
    if (!cache.has(page)) {
      const file = path.join(base, "docs", `${page}.md`)
      cache.set(page, fs.existsSync(file) ? headingsOf(fs.readFileSync(file, "utf8")) : undefined)
    }
    return cache.get(page)
  }
}

describe("comments' citations", () => {
  it("read the source trees", () => {
    const files = sourceFiles(root)
    expect(files).toEqual(expect.arrayContaining(["schema/Errors.ts", "test/docs/citations.test.ts"]))
    expect(files.some((file) => file.startsWith("sdk/dist/") || file.includes("/node_modules/"))).toBe(false)
  })

  it("name no section number, no file outside the repository and only headings that exist", () => {
    const pages = docsPages(root)
    const problems = sourceFiles(root).flatMap((file) =>
      citationProblems(file, fs.readFileSync(path.join(root, file), "utf8"), pages)
    )
    expect(problems).toEqual([])
  })
})

describe("the citation checker", () => {
  // Built from parts, so that this file's own text holds no citation to check.
  const SECTION = "\u00a7"
  const SPEC = ["sp", "ec"].join("")
  const ARCH = ["ARCHITECTURE", "md"].join(".")
  const CB = ["client", "behaviour.md"].join("-")
  const q = '"'
  const pages = (page: string) =>
    page === "decisions"
      ? headingsOf(
          ["# Project decisions", "## Wire", "## Traces (OTLP/HTTP)", "```sh", "# not a heading", "```"].join("\n")
        )
      : undefined

  it("takes headings outside fences only", () => {
    expect([...headingsOf("# A\n## B ##\n### C\n#### D\n```\n## E\n```\n")]).toEqual(["A", "B", "C"])
  })

  it("passes a citation of a heading, wrapped or not, alone or with others", () => {
    const source = [
      `/** Ids (docs/decisions.md ${q}Wire${q}). */`,
      "/**",
      ` * Spans (docs/decisions.md ${q}Traces`,
      ` * (OTLP/HTTP)${q}), and the same (docs/decisions.md, ${q}Wire${q}, ${q}Traces (OTLP/HTTP)${q}).`,
      " */",
      `// docs/decisions.md ${q}Wire${q} and ${q}Traces (OTLP/HTTP)${q}`,
      `const fixture = { ${q}docs/decisions.md${q}: ${q}# Wire${q} }`
    ].join("\n")
    expect(citationProblems("a.ts", source, pages)).toEqual([])
  })

  it("reports a section number, an outside file, a heading that is not there and a page that is not there", () => {
    const source = [
      `/** Wire errors (decisions.md ${SECTION}1). */`,
      `// See ${SECTION} 12 and ${SECTION}: a sign alone is text.`,
      `/** Ids (docs/decisions.md ${q}Ids${q}). */`,
      `/** (docs/decisions.md ${q}Wire${q}, ${q}Tracing${q}) */`,
      "/**",
      ` * (docs/decisions.md ${q}# not${q}, and docs/nowhere.md ${q}Wire${q})`,
      " */",
      `// Limits (${SPEC} part 8), and ${SPEC.toUpperCase()} PARTS 2, 4.`,
      `/** (the ${ARCH}, not docs/${ARCH.toLowerCase()} nor docs/${ARCH}; ${CB} ${q}Events${q}) */`
    ].join("\n")
    const outside = (line: number, text: string) =>
      `a.ts:${line}: ${q}${text}${q} points outside the repository; cite docs/<page>.md ${q}Heading${q}`
    expect(citationProblems("a.ts", source, pages)).toEqual([
      `a.ts:1: ${q}${SECTION}1${q} numbers a section of a file outside the repository; cite docs/<page>.md ${q}Heading${q}`,
      `a.ts:2: ${q}${SECTION} 12${q} numbers a section of a file outside the repository; cite docs/<page>.md ${q}Heading${q}`,
      `a.ts:3: docs/decisions.md has no heading ${q}Ids${q}`,
      `a.ts:4: docs/decisions.md has no heading ${q}Tracing${q}`,
      `a.ts:6: docs/decisions.md has no heading ${q}# not${q}`,
      "a.ts:6: docs/nowhere.md: no such page",
      outside(8, `${SPEC} part 8`),
      outside(8, `${SPEC.toUpperCase()} PARTS 2`),
      outside(9, ARCH),
      outside(9, CB.slice(0, -".md".length))
    ])
  })
})
