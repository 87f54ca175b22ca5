import react from "@vitejs/plugin-react"
import { defineConfig } from "vite"

export default defineConfig({
  plugins: [react()],
  resolve: {
    // svc-client is linked from ../../sdk (package.json "file:"), and its imports resolve from there; these are
    // resolved from this app instead, so the page has one copy of each (assistant-ui reads runs.stream as its own
    // assistant-stream's AssistantStream).
    dedupe: ["assistant-stream", "react", "react-dom"]
  },
  build: { outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 2048 }
})
