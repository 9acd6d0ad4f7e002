// The scratch project's config, as docs/testing.md shows it: Node tests that start Tributary
// with startTributary(), and the user's Worker tested in workerd with Tributary beside it.
import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { tributaryWorker } from "tributary/testing";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    projects: [
      { test: { name: "node", environment: "node", include: ["test/*.test.js"] } },
      {
        plugins: [
          cloudflareTest({
            main: "./src/index.js",
            miniflare: {
              compatibilityDate: "2026-11-01",
              serviceBindings: { TRIBUTARY: { name: "tributary", entrypoint: "TributaryService" } },
              workers: [tributaryWorker()],
            },
          }),
        ],
        test: { name: "worker", include: ["test/worker/*.test.js"] },
      },
    ],
  },
});
