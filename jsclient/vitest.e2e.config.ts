// End-to-end tests: the real binary and Debian's chromium (see jsclient/e2e/harness.ts).
// One file, in order: later steps reuse the fleet and sessions of earlier ones.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["jsclient/e2e/**/*.e2e.ts"],
    environment: "node",
    testTimeout: 60_000,
    hookTimeout: 180_000,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
