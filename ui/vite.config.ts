import { defineConfig } from "vitest/config";
import solid from "vite-plugin-solid";

// Tauri expects a fixed port in dev and the built files in ui/dist.
export default defineConfig({
  // SolidJS compiles JSX to fine-grained DOM updates: a changed signal
  // touches only the nodes that read it, never a whole page.
  plugins: [solid()],
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: {
    outDir: "dist",
    target: "es2022",
    emptyOutDir: true,
    // The app loads from disk, not a network: one ~540 kB script (KaTeX and
    // highlight.js are most of it) parses in tens of milliseconds.
    chunkSizeWarningLimit: 800,
  },
  test: { environment: "happy-dom", globals: true },
  resolve: { conditions: ["development", "browser"] },
});
