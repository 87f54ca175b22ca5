/**
 * Long lists (a thread's messages, a trace's spans) laid out in two steps.
 * At first the items carry the class `later`, styled `content-visibility:
 * auto`: they are all in the page, and the browser lays out and paints only
 * those near the view, so the view shows at once; an item scrolled to is
 * laid out then. Chromium leaves the content of such an item out of the
 * accessibility tree until it is laid out, so once the list is complete the
 * class goes, a batch of items at a time in the browser's idle time, top
 * first: within about a second the whole list is laid out as it was before
 * this, and assistive technology reads all of it.
 */
import { useEffect, useState } from "preact/hooks"

/** Items laid out for good in one idle period (a message of a thread takes a fraction of a millisecond). */
const BATCH = 50

/** `callback` in an idle period after the next frame (the one showing the list complete comes first). */
const afterNextFrame = (callback: () => void): (() => void) => {
  let cancel = () => {}
  const frame = requestAnimationFrame(() => {
    // A task after the frame, then the browser's next idle period.
    const task = setTimeout(() => {
      if (typeof requestIdleCallback === "function") {
        const idle = requestIdleCallback(callback, { timeout: 1000 })
        cancel = () => cancelIdleCallback(idle)
      } else {
        callback()
      }
    })
    cancel = () => clearTimeout(task)
  })
  cancel = () => cancelAnimationFrame(frame)
  return () => cancel()
}

/** How many of the list's first items are laid out for good: 0 until `complete`, then up to `count`, a batch at a time. */
export const useSettled = (count: number, complete: boolean): number => {
  const [settled, setSettled] = useState(0)
  useEffect(() => {
    if (!complete || settled >= count) return
    return afterNextFrame(() => setSettled((now) => Math.min(count, now + BATCH)))
  }, [complete, settled, count])
  return settled
}
