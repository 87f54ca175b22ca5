/** Scaffolding: the Erasure view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Erasure = (_props: ViewProps) => {
  useTitle("Erasure")
  return <h1>Erasure</h1>
}
