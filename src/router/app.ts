import { Hono } from "hono";
import { asTributaryError, TributaryError } from "../errors.ts";
import { fetchHeaders } from "../protocol/content-types.ts";
import { allowedMethodsOf, methodNotAllowed } from "./allowed-methods.ts";
import { authentication } from "./auth.ts";
import { clientRegionHeader } from "./client-region.ts";
import { corsMiddleware } from "./cors.ts";
import type { RouterEnv } from "./context.ts";
import { errorResponse } from "./http-errors.ts";
import { RouterCounters } from "../metrics/router-counters.ts";
import { metricsMiddleware } from "./metrics-middleware.ts";
import { quotaMiddleware } from "./quotas.ts";
import { binaryRecordRoutes } from "./routes/binary-records.ts";
import { groupRoutes } from "./routes/groups.ts";
import { faultRoutes } from "./routes/faults.ts";
import { metricsRoutes } from "./routes/metrics.ts";
import { openApiRoutes } from "./routes/openapi.ts";
import { partitionSocketRoutes } from "./routes/partition-socket.ts";
import { producerRoutes } from "./routes/producers.ts";
import { readTokenRoutes } from "./routes/read-tokens.ts";
import { recordRoutes } from "./routes/records.ts";
import { tokenRoutes } from "./routes/tokens.ts";
import { topicRoutes } from "./routes/topics.ts";
import { writeTokenRoutes } from "./routes/write-tokens.ts";
// Share groups (issue 15).
import { shareGroupRoutes } from "./routes/share-groups.ts";
import { subscriptionRoutes } from "./routes/subscriptions.ts";
import { durableStreamsBasePath, durableStreamsRoutes } from "../durable-streams/routes.ts";
import { clusterRoutes } from "./routes/cluster.ts";

/** The router Worker's HTTP API (API.md): stateless; every piece of state lives in an object. */
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
  app.route("/v1/tokens", tokenRoutes);
  app.route("/v1", openApiRoutes);
  app.route("/v1/metrics", metricsRoutes(counters));
  app.route("/v1/share-groups", shareGroupRoutes); // share groups (issue 15)
  app.route("/v1/subscriptions", subscriptionRoutes); // push subscriptions (issue 15)
  // The Durable Streams protocol (docs/durable-streams.md): its own CORS, authentication and errors.
  app.route(durableStreamsBasePath, durableStreamsRoutes);
  app.route("/v1/cluster", clusterRoutes); // the deployment's cluster id (issue 16, the Kafka gateway)
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
