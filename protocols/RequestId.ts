/**
 * The request id: on every response as `X-Request-Id` and on every log line
 * of the request (`request_id`). A caller's or proxy's own id is kept when it
 * is sane (1 to 128 visible ASCII characters, no space), so one id follows
 * the request through the proxy's logs and ours; anything else is replaced
 * by a new random id. It is taken from anyone, not only from TRUSTED_PROXIES:
 * it correlates log lines, it grants nothing, and the character rule keeps it
 * from breaking a log line (no newline, no space, no control character).
 */
import { randomUUID } from "node:crypto"

export const REQUEST_ID_HEADER = "x-request-id"

const SANE = /^[\x21-\x7e]{1,128}$/

/** The id of a request that came with `header` (its X-Request-Id value, if any). */
export const requestIdFrom = (header: string | undefined): string =>
  header !== undefined && SANE.test(header) ? header : randomUUID()
