/**
 * A span as the trace use cases take it, whatever the encoding it came in
 * (protocols/otlp decodes OTLP protobuf and OTLP/JSON into this): ids as
 * lowercase hex, times as decimal nanoseconds, attribute lists as JSON
 * objects. It knows nothing of OTLP's wire types.
 */

/** An OTLP AnyValue as JSON: arrays and key-value lists as arrays and objects, bytes as base64, int64 past 2^53 as a decimal string. */
export type AttributeValue =
  | string
  | number
  | boolean
  | null
  | ReadonlyArray<AttributeValue>
  | { readonly [key: string]: AttributeValue }

export type Attributes = Readonly<Record<string, AttributeValue>>

export interface SpanEventInput {
  readonly name: string
  readonly time_unix_nano: string
  readonly attributes: Attributes
}

export interface SpanLinkInput {
  readonly trace_id: string
  readonly span_id: string
  readonly trace_state: string
  readonly attributes: Attributes
}

/** OTLP SpanKind numbers: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
export const SPAN_KINDS = ["unspecified", "internal", "server", "client", "producer", "consumer"] as const
/** OTLP StatusCode numbers: 0 unset, 1 ok, 2 error. */
export const STATUS_CODES = ["unset", "ok", "error"] as const

export interface SpanInput {
  /** 32 lowercase hex digits, not all zero. */
  readonly trace_id: string
  /** 16 lowercase hex digits, not all zero. */
  readonly span_id: string
  readonly parent_span_id: string | null
  readonly trace_state: string
  readonly name: string
  /** An index of SPAN_KINDS. */
  readonly kind: number
  /** Decimal nanoseconds since the Unix epoch. */
  readonly start_time_unix_nano: string
  readonly end_time_unix_nano: string
  readonly attributes: Attributes
  readonly events: ReadonlyArray<SpanEventInput>
  readonly links: ReadonlyArray<SpanLinkInput>
  /** An index of STATUS_CODES. */
  readonly status_code: number
  readonly status_message: string
  /** The resource's attributes (`service.name` among them). */
  readonly resource: Attributes
  readonly scope: { readonly name: string; readonly version: string; readonly attributes: Attributes }
}
