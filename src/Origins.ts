import * as Effect from "effect/Effect"
import { orNotFound, rowNotFoundAs404 } from "./Found.js"
import { OriginsRepo } from "./storage/OriginsRepo.js"
import { ProjectsRepo } from "./storage/ProjectsRepo.js"
import { fn } from "./Traced.js"
import { TtlCache } from "./TtlCache.js"

/** How long a project's list is remembered; an update in this process evicts it at once. */
const CACHE_MS = 5_000
const MAX_PROJECTS = 10_000

/** The allowed browser origins of each project (CORS on the frontend base URL). */
export class Origins extends Effect.Service<Origins>()("svc/Origins", {
  dependencies: [OriginsRepo.Default, ProjectsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OriginsRepo
    const projects = yield* ProjectsRepo
    const clock = yield* Effect.clock
    const cache = new TtlCache<string, ReadonlySet<string>>(MAX_PROJECTS, () => clock.unsafeCurrentTimeMillis())

    const allowed = (projectId: string): Effect.Effect<ReadonlySet<string>> => {
      const cached = cache.get(projectId)
      if (cached !== undefined) return Effect.succeed(cached)
      return Effect.map(repo.list(projectId), (list) => {
        const origins: ReadonlySet<string> = new Set(list)
        cache.set(projectId, origins, clock.unsafeCurrentTimeMillis() + CACHE_MS)
        return origins
      })
    }

    /** A project's list; 404 for a project that does not exist. */
    const list = fn("Origins.list")(function* (projectId: string) {
      yield* Effect.flatMap(projects.get(projectId), orNotFound("project"))
      return yield* repo.list(projectId)
    })

    const replace = fn("Origins.replace")(function* (projectId: string, origins: ReadonlyArray<string>) {
      const unique = [...new Set(origins)]
      yield* rowNotFoundAs404(repo.replace(projectId, unique))
      cache.delete(projectId)
      return unique.sort()
    })

    return { allowed, list, replace } as const
  })
}) {}
