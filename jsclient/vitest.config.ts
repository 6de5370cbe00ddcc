// Unit tests: Node, no DOM; the browser itself is exercised by the e2e tests (vitest.e2e.config.ts).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["jsclient/test/**/*.test.ts"],
    environment: "node",
  },
});
