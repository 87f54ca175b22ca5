/** Scaffolding: the Jobs view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Jobs = (_props: ViewProps) => {
  useTitle("Jobs")
  return <h1>Jobs</h1>
}
