import { Hono } from "hono";
import { asTributaryError, TributaryError } from "./errors.ts";
import { fetchHeaders } from "./protocol/content-types.ts";
import { allowedMethodsOf, methodNotAllowed } from "./router/allowed-methods.ts";
import { authentication } from "./router/auth.ts";
import { clientRegionHeader } from "./router/client-region.ts";
import { corsMiddleware } from "./router/cors.ts";
import type { RouterEnv } from "./router/context.ts";
import { errorResponse } from "./router/http-errors.ts";
import { RouterCounters } from "./metrics/router-counters.ts";
import { metricsMiddleware } from "./router/metrics-middleware.ts";
import { quotaMiddleware } from "./router/quotas.ts";
import { binaryRecordRoutes } from "./router/routes/binary-records.ts";
import { groupRoutes } from "./router/routes/groups.ts";
import { classicMemberRoutes } from "./router/routes/classic-members.ts";
import { faultRoutes } from "./router/routes/faults.ts";
import { metricsRoutes } from "./router/routes/metrics.ts";
import { openApiRoutes } from "./router/routes/openapi.ts";
import { partitionSocketRoutes } from "./router/routes/partition-socket.ts";
import { producerRoutes } from "./router/routes/producers.ts";
import { readTokenRoutes } from "./router/routes/read-tokens.ts";
import { recordRoutes } from "./router/routes/records.ts";
import { tokenRoutes } from "./router/routes/tokens.ts";
import { topicRoutes } from "./router/routes/topics.ts";
import { writeTokenRoutes } from "./router/routes/write-tokens.ts";
// Share groups (issue 15).
import { shareGroupRoutes } from "./router/routes/share-groups.ts";
import { subscriptionRoutes } from "./router/routes/subscriptions.ts";
import { durableStreamsBasePath, durableStreamsRoutes } from "./durable-streams/routes.ts";
import { clusterRoutes } from "./router/routes/cluster.ts";
import { whoamiRoutes } from "./router/routes/whoami.ts";
import { scramRoutes } from "./router/routes/scram.ts";
import { registryBasePath, registryRoutes } from "./registry-api/routes.ts";
import { transactionRoutes } from "./router/routes/transactions.ts";

/**
 * The router Worker's HTTP API (API.md): stateless; every piece of state lives in an object.
 * The router's /v1 routes and middleware, and the Durable Streams protocol at /ds, which is
 * built on the router's middleware (authentication, CORS, quotas, SSE): the app that mounts
 * both sits above both rooms, so neither imports the other's top (STYLE.md, no circles).
 */
export function createApp(): Hono<RouterEnv> {
  const app = new Hono<RouterEnv>();
  // This app's (this isolate's) request counters for GET /v1/metrics; first, so it sees every answer.
  const counters = new RouterCounters();
  app.use("/v1/*", metricsMiddleware(counters));
  app.use(
    "/v1/*",
    corsMiddleware({
      allowHeaders: ["Authorization", "Content-Type", "Accept", "Last-Event-ID", clientRegionHeader],
      exposeHeaders: ["Retry-After", ...Object.values(fetchHeaders)],
      allowMethods: ["GET", "POST", "PATCH", "DELETE", "OPTIONS"],
      maxAgeSeconds: 600,
    }),
  );
  app.use("/v1/*", authentication());
  app.use("/v1/*", quotaMiddleware());
  // Public (no token): says whether the other routes need one, so a page can ask for a token or not.
  app.get("/v1/health", (c) => c.json({ status: "ok" }));
  app.route("/v1/topics", topicRoutes);
  app.route("/v1/topics", partitionSocketRoutes); // an Upgrade: websocket GET; others fall through
  app.route("/v1/topics", binaryRecordRoutes);
  app.route("/v1/topics", recordRoutes);
  app.route("/v1/topics", writeTokenRoutes);
  app.route("/v1/topics", readTokenRoutes);
  app.route("/v1/producers", producerRoutes);
  app.route("/v1/faults", faultRoutes);
  app.route("/v1/groups", groupRoutes);
  app.route("/v1/groups", classicMemberRoutes);
  app.route("/v1/tokens", tokenRoutes);
  app.route("/v1", openApiRoutes);
  app.route("/v1/metrics", metricsRoutes(counters));
  app.route("/v1/share-groups", shareGroupRoutes); // share groups (issue 15)
  app.route("/v1/subscriptions", subscriptionRoutes); // push subscriptions (issue 15)
  // The Durable Streams protocol (docs/durable-streams.md): its own CORS, authentication and errors.
  app.route(durableStreamsBasePath, durableStreamsRoutes);
  app.route("/v1/cluster", clusterRoutes); // the deployment's cluster id (issue 16, the Kafka gateway)
  app.route("/v1/whoami", whoamiRoutes); // the caller's kind of token (issue 31, the console's header)
  app.route("/v1/scram", scramRoutes); // SCRAM exchanges the Kafka gateway relays (issue 35)
  // Confluent Schema Registry's API (issue 30, docs/schema-registry.md): its own CORS, authentication and errors.
  app.route(registryBasePath, registryRoutes);
  app.route("/v1/transactions", transactionRoutes); // transactions' coordinators (issue 28)
  // After authentication, as any route: a path served with other methods is 405 with Allow.
  const allowedMethods = allowedMethodsOf(app.routes);
  app.notFound((c) => {
    const allow = allowedMethods(c.req.path);
    if (allow.length === 0) return errorResponse(c, new TributaryError("NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`));
    return errorResponse(c, methodNotAllowed(c.req.method, c.req.path, allow), { Allow: allow.join(", ") });
  });
  app.onError((error, c) => errorResponse(c, asTributaryError(error)));
  return app;
}
