import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { RateLimited } from "../../schema/Errors.js"
import type { RateDecision } from "../../src/RateLimiter.js"

/** 429 `rate_limited` with Retry-After and the RateLimit headers (IETF draft), for a refused decision. */
export const rateLimited = (decision: RateDecision) =>
  HttpServerResponse.unsafeJson(new RateLimited({ message: "too many requests; retry later" }), {
    status: 429,
    headers: {
      "retry-after": String(decision.resetSeconds),
      "ratelimit-policy": `${decision.limit};w=60`,
      ratelimit: `limit=${decision.limit}, remaining=0, reset=${decision.resetSeconds}`
    }
  })
