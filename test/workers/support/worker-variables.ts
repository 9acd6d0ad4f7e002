/**
 * Every variable and secret the Worker reads, as the workers and examples layers run it
 * (vitest.config.ts passes these as bindings). Given explicitly because wrangler adds a
 * developer's own `.dev.vars` beside the wrangler config (or, without one, `.env`) to the
 * bindings, and these win over it: a local `TRIBUTARY_ADMIN_TOKEN` for `npm start` must not
 * turn the tests into 401s. An empty string is "unset" wherever src/ reads these
 * (src/router/auth.ts, src/topics/placement.ts, src/objects/replica-faults.ts).
 * test/e2e/dev-vars-ignored.test.ts runs both layers beside such files.
 */
export const testWorkerVariables = {
  TRIBUTARY_ADMIN_TOKEN: "",
  TRIBUTARY_FAULTS: "",
  TRIBUTARY_DEBUG_STATS: "",
  REGIONS: "wnam,enam,weur,apac,oc",
  CORS_ORIGINS: "*",
  SUBSCRIPTION_ORIGINS: "",
  DURABLE_STREAMS_LONG_POLL_MS: "20000",
  TOPIC_DEFAULT_PARTITIONS: "1",
  TOPIC_DEFAULT_REPLICATION_FACTOR: "1",
} as const satisfies Record<WorkerVariableName, string>;

/** The workers layer rehearses faults (API.md, fault injection). */
export const workersLayerVariables = {
  ...testWorkerVariables,
  TRIBUTARY_FAULTS: "1",
  // Push subscriptions' webhook allow-list (test/workers/subscriptions/allow-list.test.ts).
  SUBSCRIPTION_ORIGINS: "https://hooks.tributary.test, http://127.0.0.1:9",
} as const;

/** The names of the Worker's string bindings (variables and secrets): a new one fails the type check until it is listed above. */
type WorkerVariableName = { [Name in keyof Env]-?: NonNullable<Env[Name]> extends string ? Name : never }[keyof Env];

/** The Worker's variables and secrets out of `env`, for comparing with the lists above. */
export function workerVariablesOf(env: Env): Record<WorkerVariableName, string | undefined> {
  const names = Object.keys(testWorkerVariables) as WorkerVariableName[];
  return Object.fromEntries(names.map((name) => [name, env[name]])) as Record<WorkerVariableName, string | undefined>;
}
