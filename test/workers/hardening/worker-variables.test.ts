/**
 * The workers layer runs on the variables its configuration sets (vitest.config.ts), not on a
 * developer's `.dev.vars` or `.env`: test/e2e/dev-vars-ignored.test.ts runs this file in a copy
 * of the project beside such files.
 */
import { env } from "cloudflare:workers";
import { expect, it } from "vitest";
import { workerVariablesOf, workersLayerVariables } from "../support/worker-variables.ts";

it("sees every variable and secret of the Worker as the test configuration sets it", () => {
  expect(workerVariablesOf(env)).toEqual(workersLayerVariables);
});
