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
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two cores: more workers only make each PGlite start slower.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } }
  }
})
