/** Scaffolding: the Keys view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Keys = (_props: ViewProps) => {
  useTitle("Keys")
  return <h1>Keys</h1>
}
