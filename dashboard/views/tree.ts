/**
 * A thread's messages as a tree by parent_id: the branch shown at each fork
 * is the one chosen, else the one holding the newest message (a client's
 * latest turn), else the one leading to a message asked for by id.
 */
import type { Message } from "../../schema/Message.js"

const ROOT = ""

export interface Tree {
  /** A parent's id ("" for the roots, and for messages whose parent is not in the thread) to its children, oldest first. */
  readonly children: ReadonlyMap<string, ReadonlyArray<Message>>
  /** Each message's newest time in its subtree (ms). */
  readonly newest: ReadonlyMap<string, number>
  readonly byId: ReadonlyMap<string, Message>
}

export const parentKey = (message: Message, byId: ReadonlyMap<string, Message>): string =>
  message.parent_id !== null && byId.has(message.parent_id) ? message.parent_id : ROOT

export const buildTree = (messages: ReadonlyArray<Message>): Tree => {
  const byId = new Map(messages.map((message) => [message.id, message]))
  const children = new Map<string, Array<Message>>()
  for (const message of messages) {
    const key = parentKey(message, byId)
    const list = children.get(key)
    if (list) list.push(message)
    else children.set(key, [message])
  }
  for (const list of children.values()) {
    list.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || (a.id < b.id ? -1 : 1))
  }
  // Newest time under each message, without recursion (a thread may be 1,000 deep).
  const newest = new Map<string, number>()
  const order: Array<Message> = []
  const stack = [...(children.get(ROOT) ?? [])]
  const seen = new Set<string>()
  while (stack.length > 0) {
    const message = stack.pop()
    if (!message || seen.has(message.id)) continue
    seen.add(message.id)
    order.push(message)
    for (const child of children.get(message.id) ?? []) stack.push(child)
  }
  for (let i = order.length - 1; i >= 0; i--) {
    const message = order[i]
    if (!message) continue
    let latest = message.created_at.getTime()
    for (const child of children.get(message.id) ?? []) latest = Math.max(latest, newest.get(child.id) ?? 0)
    newest.set(message.id, latest)
  }
  return { children, newest, byId }
}

export interface Turn {
  readonly message: Message
  /** Its position among its siblings (0-based) and how many there are. */
  readonly index: number
  readonly count: number
  /** The key a branch choice is kept under (its parent's). */
  readonly fork: string
}

const newestIndex = (siblings: ReadonlyArray<Message>, newest: ReadonlyMap<string, number>): number => {
  let best = 0
  siblings.forEach((message, i) => {
    const at = siblings[best]
    if ((newest.get(message.id) ?? 0) >= (at ? (newest.get(at.id) ?? 0) : 0)) best = i
  })
  return best
}

/** The forks on the way to `target` with the child to take at each (to show a linked message). */
export const pathTo = (tree: Tree, target: string | undefined): Map<string, string> => {
  const choices = new Map<string, string>()
  let at = target ? tree.byId.get(target) : undefined
  const seen = new Set<string>()
  while (at && !seen.has(at.id)) {
    seen.add(at.id)
    const key = parentKey(at, tree.byId)
    choices.set(key, at.id)
    at = key === ROOT ? undefined : tree.byId.get(key)
  }
  return choices
}

/** The messages shown, root to leaf: at each fork the chosen child (by id), else the newest branch. */
export const visiblePath = (tree: Tree, chosen: ReadonlyMap<string, string>): Array<Turn> => {
  const turns: Array<Turn> = []
  const seen = new Set<string>()
  let fork = ROOT
  for (;;) {
    const siblings = tree.children.get(fork)
    if (!siblings || siblings.length === 0) return turns
    const pick = chosen.get(fork)
    const picked = pick === undefined ? -1 : siblings.findIndex((message) => message.id === pick)
    const index = picked >= 0 ? picked : newestIndex(siblings, tree.newest)
    const message = siblings[index]
    if (!message || seen.has(message.id)) return turns
    seen.add(message.id)
    turns.push({ message, index, count: siblings.length, fork })
    fork = message.id
  }
}
