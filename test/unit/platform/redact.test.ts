import { describe, expect, it } from "vitest"
import { REDACTED, redactText, redactUrl } from "../../../src/platform/telemetry/Redact.js"

describe("redaction of log text", () => {
  it("replaces signatures and tokens in query strings", () => {
    expect(redactUrl("/v1/blobs/k?expires=1&signature=abc&x=1")).toBe(`/v1/blobs/k?expires=1&signature=${REDACTED}&x=1`)
    expect(redactText('"url":"https://s3/b/k?X-Amz-Signature=f00&X-Amz-Credential=AKIA%2F"')).not.toMatch(/f00|AKIA/)
  })

  it("replaces Authorization values whatever the scheme's case", () => {
    const line = "authorization: Bearer sk_abc123 | bearer sk_def456 | BEARER sk_ghi789 | basic dXNlcjpwdw=="
    const redacted = redactText(line)
    for (const secret of ["sk_abc123", "sk_def456", "sk_ghi789", "dXNlcjpwdw=="]) expect(redacted).not.toContain(secret)
    expect(redacted).toContain(`bearer ${REDACTED}`)
  })

  it("leaves text without secrets as it is", () => {
    const line = '{"message":"Listening on http://127.0.0.1:8787","basically":"fine"}'
    expect(redactText(line)).toBe(line)
  })
})
