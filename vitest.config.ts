import { fileURLToPath } from "node:url"
import { defineConfig } from "vitest/config"

const sdk = (entry: string) => fileURLToPath(new URL(`./sdk/${entry}.ts`, import.meta.url))

export default defineConfig({
  // Tests import the client by its package name, from source; test/sdk/package.test.ts installs the packed tarball.
  resolve: {
    alias: [
      { find: /^svc-client$/, replacement: sdk("index") },
      { find: /^svc-client\/(effect|ai-sdk|telemetry)$/, replacement: sdk("$1") }
    ]
  },
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // One module graph per worker: the files of a worker share the imported app (each file still starts its
    // own gateways and stores); importing it again for each of ~90 files took a quarter of the run.
    isolate: false,
    // Two cores: more workers only make each PGlite start slower.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
