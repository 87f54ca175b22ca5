/**
 * The topics job's worker thread (built as dist/topics-worker.js): one full
 * run's clustering, off the gateway's event loop, so that seconds of
 * arithmetic never hold a request (src/topics/TopicCompute.ts starts it).
 */
import { parentPort, workerData } from "node:worker_threads"
import { type ClusterOptions, clusterTopics, type TopicThread } from "./Clustering.js"
import { isClusterInput } from "./TopicCompute.js"

const input: unknown = workerData
if (parentPort !== null && isClusterInput(input)) {
  const options: ClusterOptions = input.options
  const threads: ReadonlyArray<TopicThread> = input.threads
  parentPort.postMessage(clusterTopics(threads, options))
} else {
  throw new Error("the topics worker was started without its input")
}
