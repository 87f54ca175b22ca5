/**
 * The documentation a user navigates: the README stays a page (at most 400
 * lines), and every relative link of the README, the changelog and
 * docs/*.md names a file that exists; a link with `#anchor` into a Markdown
 * file names a heading of it, by GitHub's slug. External links are not
 * fetched: the tests run offline, and a remote page is not ours to keep.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

const README_MAX_LINES = 400

/** What the checker reads: the tests below give it a tree of their own. */
interface Files {
  readonly exists: (absolute: string) => boolean
  readonly read: (absolute: string) => string
}

const disk: Files = {
  exists: (absolute) => fs.existsSync(absolute),
  read: (absolute) => fs.readFileSync(absolute, "utf8")
}

/** The lines outside fenced code blocks (``` or ~~~), with their line numbers. */
const proseLines = (markdown: string): Array<{ readonly line: number; readonly text: string }> => {
  const out: Array<{ line: number; text: string }> = []
  let fence: string | undefined
  markdown.split("\n").forEach((text, index) => {
    const opening = /^\s{0,3}(`{3,}|~{3,})/.exec(text)
    if (opening?.[1] !== undefined) {
      const marker = opening[1]
      if (fence === undefined) fence = marker
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = undefined
      return
    }
    if (fence === undefined) out.push({ line: index + 1, text })
  })
  return out
}

/** Inline code spans hold examples, not links: `[x](y)` there is text. */
const withoutCodeSpans = (text: string): string => text.replace(/(`+)[\s\S]*?\1/g, "")

/**
 * GitHub's heading anchor (github-slugger): the heading's text as rendered
 * (code marks, emphasis and link targets gone), lower-cased, every character
 * that is not a letter, mark, digit, `_`, `-` or space dropped, spaces made `-`.
 */
const slug = (heading: string): string =>
  heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/<[^>]+>/g, "")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-")

/** Every anchor a Markdown file offers: its headings' slugs (a repeated one gets -1, -2, ...) and explicit ids. */
const anchorsOf = (markdown: string): ReadonlySet<string> => {
  const anchors = new Set<string>()
  const seen = new Map<string, number>()
  for (const { text } of proseLines(markdown)) {
    const heading = /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(text)
    if (heading?.[1] !== undefined) {
      const base = slug(heading[1])
      const count = seen.get(base) ?? 0
      seen.set(base, count + 1)
      anchors.add(count === 0 ? base : `${base}-${count}`)
    }
    for (const id of text.matchAll(/<a\s+(?:name|id)="([^"]+)"/g)) if (id[1] !== undefined) anchors.add(id[1])
  }
  return anchors
}

/** The inline links `[text](target)` and images of a Markdown file, outside code. */
const linksOf = (markdown: string): Array<{ readonly line: number; readonly target: string }> => {
  const links: Array<{ line: number; target: string }> = []
  for (const { line, text } of proseLines(markdown)) {
    for (const match of withoutCodeSpans(text).matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      if (match[1] !== undefined) links.push({ line, target: match[1] })
    }
  }
  return links
}

/** Each broken link of `file` (a path under `base`), as `file:line: target: why`. */
const brokenLinks = (base: string, file: string, files: Files = disk): Array<string> => {
  const absolute = path.join(base, file)
  const markdown = files.read(absolute)
  const problems: Array<string> = []
  for (const { line, target } of linksOf(markdown)) {
    // http:, https:, mailto: and the like: not fetched.
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
    const hash = target.indexOf("#")
    const pathPart = decodeURIComponent(hash === -1 ? target : target.slice(0, hash))
    const anchor = hash === -1 ? undefined : decodeURIComponent(target.slice(hash + 1))
    const resolved = pathPart === "" ? absolute : path.resolve(path.dirname(absolute), pathPart)
    const where = `${file}:${line}: ${target}`
    if (path.relative(base, resolved).startsWith("..")) {
      problems.push(`${where}: points outside the repository`)
      continue
    }
    if (!files.exists(resolved)) {
      problems.push(`${where}: no such file`)
      continue
    }
    if (anchor !== undefined && resolved.endsWith(".md") && !anchorsOf(files.read(resolved)).has(anchor)) {
      problems.push(`${where}: no heading with this anchor`)
    }
  }
  return problems
}

/** README.md, CHANGELOG.md and every docs/*.md that exist, relative to the root. */
const documentation = (): Array<string> => [
  ...["README.md", "CHANGELOG.md"].filter((file) => fs.existsSync(path.join(root, file))),
  ...fs
    .readdirSync(path.join(root, "docs"))
    .filter((name) => name.endsWith(".md"))
    .sort()
    .map((name) => `docs/${name}`)
]

describe("the documentation", () => {
  it(`keeps the README to at most ${README_MAX_LINES} lines`, () => {
    const lines = fs.readFileSync(path.join(root, "README.md"), "utf8").replace(/\n$/, "").split("\n").length
    expect(lines).toBeLessThanOrEqual(README_MAX_LINES)
  })

  it("has README.md and topic pages under docs/", () => {
    expect(documentation()).toEqual(expect.arrayContaining(["README.md", "docs/operations.md", "docs/decisions.md"]))
  })

  it.each(documentation())("%s: every relative link resolves", (file) => {
    expect(brokenLinks(root, file)).toEqual([])
  })
})

describe("the link checker", () => {
  /** An in-memory tree: paths relative to /repo. */
  const tree = (entries: Record<string, string>): Files => ({
    exists: (absolute) =>
      Object.keys(entries).some((key) => {
        const full = path.join("/repo", key)
        return full === absolute || full.startsWith(`${absolute}/`)
      }),
    read: (absolute) => {
      const text = entries[path.relative("/repo", absolute)]
      if (text === undefined) throw new Error(`no file ${absolute}`)
      return text
    }
  })

  it("makes GitHub's anchors", () => {
    expect(slug("Traces (OTLP/HTTP)")).toBe("traces-otlphttp")
    expect(slug("Client building blocks (svc-client, issue 14)")).toBe("client-building-blocks-svc-client-issue-14")
    expect(slug("Run reports, scores and events")).toBe("run-reports-scores-and-events")
    expect(slug("`svc`, the admin command line")).toBe("svc-the-admin-command-line")
    expect(slug("MCP (for AI agents)")).toBe("mcp-for-ai-agents")
    expect([...anchorsOf("# A\n## Same\n## Same\n```\n## Not a heading\n```\n")]).toEqual(["a", "same", "same-1"])
  })

  it("reports a link to a missing file and a missing anchor, and passes good ones", () => {
    const files = tree({
      "README.md": [
        "[ok](docs/a.md) [ok anchor](docs/a.md#the-part) [here](#top) [dir](docs)",
        "[gone](docs/missing.md)",
        "[bad anchor](docs/a.md#no-such-part)",
        "[web](https://example.com/nowhere) [mail](mailto:a@example.com)",
        "`[in code](nowhere.md)`",
        "```",
        "[in a fence](nowhere.md)",
        "```",
        "# Top"
      ].join("\n"),
      "docs/a.md": "# A\n\n## The part\n\n[up](../README.md#top) [out](../../etc/passwd)\n"
    })
    expect(brokenLinks("/repo", "README.md", files)).toEqual([
      "README.md:2: docs/missing.md: no such file",
      "README.md:3: docs/a.md#no-such-part: no heading with this anchor"
    ])
    expect(brokenLinks("/repo", "docs/a.md", files)).toEqual([
      "docs/a.md:5: ../../etc/passwd: points outside the repository"
    ])
  })
})
