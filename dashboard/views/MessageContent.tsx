/**
 * A stored message's content, readably: `svc/v0` (`content` a string or
 * parts) and `ai-sdk/v6` (`parts` of an AI SDK UIMessage): text, reasoning,
 * tool calls with their arguments and results, files and sources as links.
 * Any other format, and any part not known here, as indented JSON. Text is
 * only ever rendered as text.
 */
import type { ComponentChildren } from "preact"
import { pretty, prettyText } from "../format.js"
import { Code } from "../ui.js"

type Bag = Readonly<Record<string, unknown>>

const isBag = (value: unknown): value is Bag => typeof value === "object" && value !== null && !Array.isArray(value)
const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

/** Only web addresses become links: never javascript: or other schemes from stored content. */
const safeUrl = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined
  try {
    const url = new URL(value)
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined
  } catch {
    return undefined
  }
}

export const Json = ({ value }: { readonly value: unknown }) => <Code text={pretty(value)} />

const Tool = (props: {
  readonly name: string
  readonly id: string | undefined
  readonly state: string | undefined
  readonly args: unknown
  readonly result: unknown
  readonly error: string | undefined
}) => (
  <div class={props.error ? "part tool failed" : "part tool"}>
    <p class="part-head">
      <span class="kind">Tool call</span> <strong>{props.name}</strong>
      {props.id ? <code class="id"> {props.id}</code> : null}
      {props.state ? <span class="muted"> · {props.state}</span> : null}
    </p>
    <p class="label">Arguments</p>
    {props.args === undefined ? <p class="muted">None</p> : <Code text={prettyText(props.args)} />}
    {props.error !== undefined ? (
      <>
        <p class="label">Error</p>
        <Code text={props.error} />
      </>
    ) : props.result !== undefined ? (
      <>
        <p class="label">Result</p>
        <Code text={prettyText(props.result)} />
      </>
    ) : (
      <p class="muted">No result</p>
    )}
  </div>
)

const FileLink = (props: {
  readonly url: unknown
  readonly name: unknown
  readonly type: unknown
  readonly kind: string
}) => {
  const url = safeUrl(props.url)
  const name = text(props.name) ?? (url ? url.split("/").pop() || url : "file")
  const type = text(props.type)
  return (
    <p class="part file">
      <span class="kind">{props.kind}</span>{" "}
      {url ? (
        <a href={url} target="_blank" rel="noopener noreferrer">
          {name}
        </a>
      ) : (
        <span>{name}</span>
      )}
      {type ? <span class="muted"> ({type})</span> : null}
      {!url && typeof props.url === "string" && props.url.startsWith("data:") ? (
        <span class="muted"> (inline data)</span>
      ) : null}
    </p>
  )
}

const Part = ({ part }: { readonly part: unknown }): ComponentChildren => {
  if (typeof part === "string") return <p class="part text">{part}</p>
  if (!isBag(part)) return <Json value={part} />
  const type = text(part.type) ?? ""
  if (type === "text") return <p class="part text">{text(part.text) ?? ""}</p>
  if (type === "reasoning") {
    return (
      <details class="part reasoning">
        <summary>Reasoning</summary>
        <p class="text">{text(part.text) ?? text(part.reasoning) ?? ""}</p>
      </details>
    )
  }
  if (type === "tool-call" || type === "dynamic-tool" || type.startsWith("tool-")) {
    const name = type.startsWith("tool-") && type !== "tool-call" ? type.slice(5) : (text(part.toolName) ?? "tool")
    const isError = part.isError === true || part.state === "output-error"
    return (
      <Tool
        name={name}
        id={text(part.toolCallId)}
        state={text(part.state)}
        args={part.input ?? part.args ?? part.argsText}
        result={part.output ?? part.result}
        error={text(part.errorText) ?? (isError ? pretty(part.result ?? "failed") : undefined)}
      />
    )
  }
  if (type === "file") {
    return (
      <FileLink kind="File" url={part.url ?? part.data} name={part.filename} type={part.mediaType ?? part.mimeType} />
    )
  }
  if (type === "image") return <FileLink kind="Image" url={part.image} name={part.filename} type={part.mimeType} />
  if (type === "source-url" || type === "source") {
    return <FileLink kind="Source" url={part.url} name={part.title} type={undefined} />
  }
  if (type === "source-document") {
    return <FileLink kind="Document" url={undefined} name={part.title ?? part.filename} type={part.mediaType} />
  }
  if (type === "step-start") return <hr class="step" aria-label="Next step" />
  return (
    <div class="part other">
      <p class="part-head">
        <span class="kind">{type || "Part"}</span>
      </p>
      <Json value={part} />
    </div>
  )
}

const Parts = ({ parts }: { readonly parts: unknown }) => {
  if (typeof parts === "string") return <p class="part text">{parts}</p>
  if (!Array.isArray(parts)) return parts === undefined ? null : <Json value={parts} />
  // A step boundary before anything else separates nothing.
  const shown = isBag(parts[0]) && parts[0].type === "step-start" ? parts.slice(1) : parts
  // Parts have no ids; their order is fixed (drawn by position).
  return shown.map((part) => Part({ part }))
}

/** The role the content names, if any. */
export const roleOf = (content: Bag): string | undefined => text(content.role)

/** Attachments svc/v0 keeps beside the parts. */
const Attachments = ({ value }: { readonly value: unknown }) =>
  Array.isArray(value) && value.length > 0 ? (
    <div class="attachments">
      {value.map((each, i) =>
        isBag(each) ? (
          <FileLink key={i} kind="Attachment" url={each.url ?? each.content} name={each.name} type={each.contentType} />
        ) : null
      )}
    </div>
  ) : null

export const MessageContent = ({ format, content }: { readonly format: string; readonly content: Bag }) => {
  if (format === "svc/v0" && ("content" in content || "parts" in content)) {
    return (
      <div class="content">
        {Parts({ parts: content.content ?? content.parts })}
        <Attachments value={content.attachments} />
      </div>
    )
  }
  if (format === "ai-sdk/v6" && Array.isArray(content.parts)) {
    return <div class="content">{Parts({ parts: content.parts })}</div>
  }
  return (
    <div class="content">
      <Json value={content} />
    </div>
  )
}
