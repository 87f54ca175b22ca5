/** Scaffolding: the Evaluators view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Evaluators = (_props: ViewProps) => {
  useTitle("Evaluators")
  return <h1>Evaluators</h1>
}
