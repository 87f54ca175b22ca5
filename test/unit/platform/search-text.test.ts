/** src/platform/text/SearchText.ts: what is indexed, how a query is read, and snippets. */
import { describe, expect, it } from "vitest"
import { indexText, messageText, parseQuery, snippetOf } from "../../../src/platform/text/SearchText.js"

describe("search text", () => {
  it("takes the text parts of svc/v0 and ai-sdk/v6 content only", () => {
    expect(messageText("svc/v0", { role: "user", content: "plain" })).toBe("plain")
    expect(
      messageText("svc/v0", {
        content: [
          { type: "text", text: "a" },
          { type: "image", url: "x" },
          { type: "text", text: "b" }
        ]
      })
    ).toBe("a\nb")
    expect(
      messageText("ai-sdk/v6", {
        parts: [
          { type: "text", text: "c" },
          { type: "reasoning", text: "no" }
        ]
      })
    ).toBe("c")
    expect(messageText("custom/v1", { content: "hidden" })).toBe("")
    expect(messageText("svc/v0", ["not", "an", "object"])).toBe("")
  })

  it("indexes unspaced scripts a character at a time", () => {
    expect(indexText("去北京 ok").split(/\s+/).filter(Boolean)).toEqual(["去", "北", "京", "ok"])
    expect(indexText("東京でスシ").split(/\s+/).filter(Boolean)).toEqual(["東", "京", "で", "ス", "シ"])
    expect(indexText("مرحبا بالعالم")).toBe("مرحبا بالعالم")
  })

  it("reads web search syntax, unspaced runs as phrases, and keeps the terms to highlight", () => {
    expect(parseQuery("北京")).toEqual({ tsquery: ' "北 京" ', rankquery: '" 北 京 "', terms: ["北京"] })
    // Ranked by the wanted terms only: a negation would flatten ts_rank.
    expect(parseQuery('lisbon -paris "old town"').rankquery).toBe('"lisbon" OR "old town"')
    expect(parseQuery("-北京 hotel").tsquery).toBe('-"北 京"  hotel')
    expect(parseQuery('hello "big world" -nope OR x').terms).toEqual(["hello", "big world", "x"])
    expect(parseQuery('-"not this" yes').terms).toEqual(["yes"])
    expect(parseQuery("iPhone手机").terms).toEqual(["iPhone", "手机"])
    expect(parseQuery("- OR").terms).toEqual([])
  })

  it("cuts a snippet around the first match and marks every match in it", () => {
    const text = `${"filler words here ".repeat(20)}we visited Lisbon and lisbon again ${"tail ".repeat(50)}`
    const snippet = snippetOf(text, ["lisbon"])
    expect(snippet.text.startsWith("…")).toBe(true)
    expect(snippet.text.endsWith("…")).toBe(true)
    expect(snippet.highlights.map(([start, end]) => snippet.text.slice(start, end))).toEqual(["Lisbon", "lisbon"])
    // Whole words only in spaced scripts; inside unspaced ones, anywhere.
    expect(snippetOf("catalog cat", ["cat"]).highlights).toEqual([[8, 11]])
    expect(snippetOf("我们去北京", ["北京"]).highlights).toEqual([[3, 5]])
    expect(snippetOf("no match", ["zzz"])).toEqual({ text: "no match", highlights: [] })
  })
})
