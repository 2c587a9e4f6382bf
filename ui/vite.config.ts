import { defineConfig } from "vitest/config";

// Tauri expects a fixed port in dev and the built files in ui/dist.
export default defineConfig({
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { outDir: "dist", target: "es2022", emptyOutDir: true },
  test: { environment: "happy-dom", globals: true },
});
