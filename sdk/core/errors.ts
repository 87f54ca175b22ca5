/**
 * The two failures of the client (docs/decisions.md "Client library (svc-client)"). One class each, shared by the
 * promise entry and the Effect entry: `_tag` sits on the prototype, so Effect's
 * `catchTag` sees it while the instance's own keys stay those of the original
 * client (`status`, `code`, `details`).
 */

/** A non-successful HTTP answer. */
export class CloudAPIError extends Error {
  declare readonly _tag: "CloudAPIError"
  readonly status: number
  /** The body's `error` when it is a string. */
  readonly code: string | undefined
  /** The body object without `error` (possibly empty); undefined when the body is not an object. */
  readonly details: Record<string, unknown> | undefined

  constructor(status: number, body: string) {
    const parsed = parseObject(body)
    const message = parsed !== undefined && typeof parsed.message === "string" && parsed.message !== ""
    super(message ? (parsed.message as string) : `Request failed with status ${status}, ${body}`)
    this.name = "CloudAPIError"
    this.status = status
    this.code = parsed !== undefined && typeof parsed.error === "string" ? parsed.error : undefined
    if (parsed === undefined) this.details = undefined
    else {
      const { error: _error, ...rest } = parsed
      this.details = rest
    }
  }
}
Object.defineProperty(CloudAPIError.prototype, "_tag", { value: "CloudAPIError" })

/** A successful answer without the shape the method expects. */
export class CloudResponseError extends Error {
  declare readonly _tag: "CloudResponseError"

  constructor(message: string) {
    super(message)
    this.name = "CloudResponseError"
  }

  /** `Invalid service response for "thread.is_archived": expected a boolean` */
  static field(path: string, expectation: string): CloudResponseError {
    return new CloudResponseError(`Invalid service response for "${path}": expected ${expectation}`)
  }
}
Object.defineProperty(CloudResponseError.prototype, "_tag", { value: "CloudResponseError" })

/** The body as a plain object, or undefined (not JSON, an array, a primitive). */
const parseObject = (body: string): Record<string, unknown> | undefined => {
  let value: unknown
  try {
    value = JSON.parse(body)
  } catch {
    return undefined
  }
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}
