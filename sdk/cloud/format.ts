/**
 * Message format names (docs/decisions.md "assistant-ui as the cloud client (issue 26)"). The
 * original client and the apps written for it (assistant-ui's runtime among them) name the
 * service's own message format `aui/v0`, its maker's prefix; the contract names it `svc/v0`, and
 * search, titles and the dashboard read the text of `svc/v0` messages only. The promise client
 * speaks the original's name: `aui/v0` goes out as `svc/v0` (in a create, and as a list's
 * `format`), and a `svc/v0` message comes back as `aui/v0`, as the header names are the
 * original's in meaning and ours on the wire. The Effect client keeps the contract's names.
 */
export const ORIGINAL_FORMAT = "aui/v0"
export const WIRE_FORMAT = "svc/v0"

/** The wire's name of a format the caller gave. */
export const formatToWire = (format: string): string => (format === ORIGINAL_FORMAT ? WIRE_FORMAT : format)

/** The name the promise client answers for a format the wire gave. */
export const formatFromWire = (format: string): string => (format === WIRE_FORMAT ? ORIGINAL_FORMAT : format)

/** True when the two names are one format (`aui/v0` and `svc/v0` are). */
export const sameFormat = (a: string, b: string): boolean => formatToWire(a) === formatToWire(b)
