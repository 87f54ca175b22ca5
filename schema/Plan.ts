import * as Schema from "effect/Schema"

/**
 * A project's plan: what its quotas are (Limits.title.monthlyQuota). The
 * names live here only; in a module of its own because Limits.ts types its
 * quotas by plan and Admin.ts, which the plan belongs to, reads Limits.ts.
 */
export const Plan = Schema.Literal("hobby", "pro", "startup", "enterprise")
export type Plan = typeof Plan.Type
