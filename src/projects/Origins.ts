import * as Cache from "effect/Cache"
import * as Effect from "effect/Effect"
import { rowNotFoundAs404 } from "../platform/Found.js"
import { fn } from "../platform/telemetry/Traced.js"
import { OriginsRepo } from "./OriginsRepo.js"
import { Projects } from "./Projects.js"

/** How long a project's list is remembered; an update in this process evicts it at once. */
const CACHE_TTL = "5 seconds"
const MAX_PROJECTS = 10_000

/** The allowed browser origins of each project (CORS on the frontend base URL). */
export class Origins extends Effect.Service<Origins>()("svc/Origins", {
  dependencies: [OriginsRepo.Default, Projects.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OriginsRepo
    const projects = yield* Projects
    // Concurrent misses of one project share one query.
    const cache = yield* Cache.make({
      capacity: MAX_PROJECTS,
      timeToLive: CACHE_TTL,
      lookup: (projectId: string) => Effect.map(repo.list(projectId), (list): ReadonlySet<string> => new Set(list))
    })

    const allowed = (projectId: string): Effect.Effect<ReadonlySet<string>> => cache.get(projectId)

    /** A project's list; 404 for a project that does not exist. */
    const list = fn("Origins.list")(function* (projectId: string) {
      yield* projects.require(projectId)
      return yield* repo.list(projectId)
    })

    const replace = fn("Origins.replace")(function* (projectId: string, origins: ReadonlyArray<string>) {
      const unique = [...new Set(origins)]
      yield* rowNotFoundAs404(repo.replace(projectId, unique))
      yield* cache.invalidate(projectId)
      return unique.sort()
    })

    return { allowed, list, replace } as const
  })
}) {}
