import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { describe, expect, it } from "vitest"
import { toTurns } from "../../../src/titles/Conversation.js"
import { extractiveWords } from "../../../src/titles/TitleGenerator.js"
import { cutTitle, shapeTitle, wordsOf } from "../../../src/titles/TitleText.js"

const shaped = (deltas: ReadonlyArray<string>, fallback = "Fallback title") =>
  Effect.runSync(
    Stream.runCollect(shapeTitle(Stream.fromIterable(deltas), Stream.make(fallback))).pipe(
      Effect.map((chunk) => Chunk.toReadonlyArray(chunk))
    )
  )

describe("title shaping", () => {
  it("drops quotes, markdown marks and trailing punctuation across delta boundaries", () => {
    expect(shaped(['**"Reset', "ting a pass", 'word."', "**\n"]).join("")).toBe("Resetting a password")
    expect(shaped(["  Don't", " panic:", " the   3.5", " release\n\n", "notes!!"]).join("")).toBe(
      "Don't panic: the 3.5 release notes"
    )
  })

  it("sends nothing before the second word, then passes deltas on as they come", () => {
    const pieces = shaped(["Quarterly", " budget", " review", " for", " Q3"])
    expect(pieces).toEqual(["Quarterly budget", " review", " for", " Q3"])
  })

  it("stops after 12 words, reading no further", () => {
    let read = 0
    const source = Stream.fromIterable(Array.from({ length: 30 }, (_, i) => ` w${i}`)).pipe(
      Stream.tap(() => Effect.sync(() => read++))
    )
    const out = Effect.runSync(Stream.runCollect(shapeTitle(source, Stream.empty)))
    expect(Chunk.join(out, "").trim().split(" ")).toHaveLength(12)
    expect(read).toBeLessThanOrEqual(14)
  })

  it("replaces an answer under 2 words with the fallback", () => {
    expect(shaped(['"Password."']).join("")).toBe("Fallback title")
    expect(shaped(["", "  ", "..."]).join("")).toBe("Fallback title")
  })

  it("keeps titles storable and within 255 characters", () => {
    expect(shaped(["Nul\u0000byte", " and \ud800 lone surrogate"]).join("")).toBe("Nul byte and lone surrogate")
    const long = shaped(["a".repeat(200), ` ${"b".repeat(200)}`]).join("")
    expect(long.length).toBeLessThanOrEqual(255)
  })
})

describe("extractive titles", () => {
  it("cleans a message into words", () => {
    expect(
      wordsOf("# Help\nSee [the docs](https://x.test/a) and https://y.test ```code here``` `npm` > quoted")
    ).toEqual(["Help", "See", "the", "docs", "and", "npm", "quoted"])
  })

  it("cuts at the first sentence, a clause mark, or 12 words", () => {
    expect(cutTitle("Fix the build. Then ship it".split(" "))).toEqual(["Fix", "the", "build."])
    const clause = "We need a plan for the offsite, including travel and food and a venue for everyone".split(" ")
    expect(cutTitle(clause)).toEqual("We need a plan for the offsite,".split(" "))
    expect(cutTitle("a b c d e f g h i j k l m n".split(" "))).toHaveLength(12)
  })

  it("falls back deterministically for one word or none", () => {
    expect(extractiveWords([{ role: "user", text: "Hi" }])).toEqual(["Conversation:", "Hi"])
    expect(extractiveWords([{ role: "user", text: "https://example.com" }])).toEqual(["New", "conversation"])
    expect(extractiveWords([{ role: "assistant", text: "How can I help today?" }])).toEqual([
      "How",
      "can",
      "I",
      "help",
      "today?"
    ])
  })

  it("reads svc/v0, AI SDK and stored-row message shapes", () => {
    expect(
      toTurns([
        { role: "user", content: "plain" },
        { role: "assistant", content: [{ type: "text", text: "parts" }, { type: "tool-call" }] },
        { role: "user", parts: [{ type: "text", text: "ai sdk" }] },
        { format: "svc/v0", content: { role: "assistant", content: [{ type: "text", text: "row" }] } },
        { role: "user", content: [{ type: "image", image: "x" }] }
      ])
    ).toEqual([
      { role: "user", text: "plain" },
      { role: "assistant", text: "parts" },
      { role: "user", text: "ai sdk" },
      { role: "assistant", text: "row" }
    ])
  })
})
