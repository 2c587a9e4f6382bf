// The UI benchmark with SolidJS as the app ships it (production build, no
// dev-mode tracking or hot-reload wrappers): `npm run bench`.
import solid from "vite-plugin-solid";
import { defineConfig } from "vitest/config";

export default defineConfig({
  plugins: [solid({ dev: false, hot: false })],
  mode: "test",
  test: {
    environment: "jsdom",
    globals: true,
    include: [],
    benchmark: { include: ["src/bench/**/*.bench.ts"] },
    // Resolved by Vite with the browser condition (Node alone would pick Solid's server build).
    server: { deps: { inline: [/solid-js/] } },
  },
  resolve: { conditions: ["browser"] },
});
