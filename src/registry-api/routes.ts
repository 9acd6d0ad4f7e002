import { Hono, type Context } from "hono";
import { clusterResourceName, type Operation } from "../auth/acl.ts";
import { registryCalls } from "../data-plane/registry-calls.ts";
import type { SchemaById } from "../registry/registry-admin.ts";
import { RegistryError } from "../registry/registry-errors.ts";
import { checkSubject } from "../registry/registry-core.ts";
import { supportedSchemaTypes } from "../registry/schema-types.ts";
import { serializedSchema } from "../registry/protobuf/proto-descriptor.ts";
import { parsedSchemas } from "../data-plane/parsed-schemas.ts";
import { allowedMethodsOf } from "../router/allowed-methods.ts";
import { authentication } from "../router/auth.ts";
import { may, principalOf } from "../router/authorize.ts";
import type { RouterEnv } from "../router/context.ts";
import { corsMiddleware } from "../router/cors.ts";
import { quotaMiddleware } from "../router/quotas.ts";
import {
  configRequestSchema,
  flag,
  modeRequestSchema,
  registryBody,
  registryErrorResponse,
  registryJson,
  registryMediaType,
  schemaRequestSchema,
  unwrapRegistry,
} from "./registry-responses.ts";
import { cachedSchema, cacheSchema } from "./schema-cache.ts";

/**
 * Confluent Schema Registry's REST API under `/registry` (docs/schema-registry.md): the URL a
 * serializer is given is `https://<worker>/registry`. Authentication and quotas as /v1; each
 * route authorizes on the `subject` resource (read to fetch, write to register, delete, alter
 * for a subject's config and mode; `alter` on the cluster for the global ones) and answers
 * Confluent's media type and error bodies. Every rule is the registry object's
 * (src/objects/schema-registry.ts over src/registry/); schemas by id are cached here.
 */
export const registryBasePath = "/registry";

type Handler = (c: Context<RouterEnv>) => Promise<Response>;

function route(handler: Handler): Handler {
  return async (c) => {
    try {
      return await handler(c);
    } catch (error) {
      return registryErrorResponse(error);
    }
  };
}

function authorizeSubject(c: Context<RouterEnv>, subject: string, operation: Operation): void {
  if (!may(principalOf(c), "subject", subject, operation)) {
    throw new RegistryError("FORBIDDEN", `not authorized to ${operation} subject ${JSON.stringify(subject)}`);
  }
}

/** The global config and mode: `alter` on the cluster (the admin token and an open deployment may). */
function authorizeGlobal(c: Context<RouterEnv>): void {
  if (!may(principalOf(c), "cluster", clusterResourceName, "alter")) {
    throw new RegistryError("FORBIDDEN", "changing the registry's global config or mode takes alter on the cluster");
  }
}

function subjectOf(c: Context<RouterEnv>): string {
  const subject = c.req.param("subject") ?? "";
  checkSubject(subject);
  return subject;
}

const registry = (c: Context<RouterEnv>) => registryCalls(c.env);
const versionOf = (c: Context<RouterEnv>): string => c.req.param("version") ?? "";

function idOf(c: Context<RouterEnv>): number {
  const text = c.req.param("id") ?? "";
  const id = /^[0-9]{1,15}$/.test(text) ? Number(text) : 0;
  if (id < 1) throw new RegistryError("SCHEMA_NOT_FOUND", `Schema ${text} not found`);
  return id;
}

/** A schema by id, from this isolate's cache or the registry, if the caller may read a subject holding it. */
async function readableSchema(c: Context<RouterEnv>, id: number): Promise<SchemaById> {
  const principal = principalOf(c);
  const readable = (schema: SchemaById) => schema.subjects.some((subject) => may(principal, "subject", subject, "read"));
  const cached = cachedSchema(id);
  if (cached && readable(cached)) return cached;
  const schema = unwrapRegistry(await registry(c).schemaById(id));
  cacheSchema(id, schema);
  // Refused the same way as an id that does not exist: a token learns nothing of others' schemas.
  if (!readable(schema)) throw new RegistryError("FORBIDDEN", `not authorized to read a subject holding schema ${id}`);
  return schema;
}

/**
 * `format=serialized`, which Confluent's Protobuf serializers and deserializers ask for: a
 * PROTOBUF schema's `schema` as its FileDescriptorProto in base64 (src/registry/protobuf/
 * proto-descriptor.ts), parsed with its references by the isolate's cache. Other types, and
 * other formats, answer the text as stored, as Confluent's do.
 */
async function formatted<T extends { schema: string; schemaType?: string }>(c: Context<RouterEnv>, id: number, answer: T): Promise<T> {
  if (c.req.query("format") !== "serialized" || answer.schemaType !== "PROTOBUF") return answer;
  const parsed = (await parsedSchemas(c.env, [id])).get(id);
  if (parsed?.schemaType !== "PROTOBUF") throw new RegistryError("SCHEMA_NOT_FOUND", `Schema ${id} not found, or its references no longer parse`);
  return { ...answer, schema: serializedSchema(parsed) };
}

function rawSchema(schema: string): Response {
  return new Response(schema, { headers: { "Content-Type": registryMediaType } });
}

const subjectRoutes = new Hono<RouterEnv>()
  .get("/", route(async (c) => {
    const subjects = unwrapRegistry(await registry(c).subjects(flag(c, "deleted"), c.req.query("subjectPrefix") ?? ""));
    const principal = principalOf(c);
    return registryJson(subjects.filter((subject) => may(principal, "subject", subject, "describe")));
  }))
  .get("/:subject/versions", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "read");
    return registryJson(unwrapRegistry(await registry(c).versions(subject, flag(c, "deleted"))));
  }))
  .post("/:subject/versions", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "write");
    const body = await registryBody(c, schemaRequestSchema);
    return registryJson(unwrapRegistry(await registry(c).register(subject, body, flag(c, "normalize"))));
  }))
  .get("/:subject/versions/:version", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "read");
    const version = unwrapRegistry(await registry(c).version(subject, versionOf(c), flag(c, "deleted")));
    return registryJson(await formatted(c, version.id, version));
  }))
  .get("/:subject/versions/:version/schema", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "read");
    return rawSchema(unwrapRegistry(await registry(c).version(subject, versionOf(c), flag(c, "deleted"))).schema);
  }))
  .get("/:subject/versions/:version/referencedby", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "read");
    return registryJson(unwrapRegistry(await registry(c).referencedBy(subject, versionOf(c))));
  }))
  .delete("/:subject/versions/:version", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "delete");
    return registryJson(unwrapRegistry(await registry(c).deleteVersion(subject, versionOf(c), flag(c, "permanent"))));
  }))
  .post("/:subject", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "read");
    const body = await registryBody(c, schemaRequestSchema);
    return registryJson(unwrapRegistry(await registry(c).lookup(subject, body, flag(c, "normalize"), flag(c, "deleted"))));
  }))
  .delete("/:subject", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "delete");
    return registryJson(unwrapRegistry(await registry(c).deleteSubject(subject, flag(c, "permanent"))));
  }));

const schemaRoutes = new Hono<RouterEnv>()
  .get("/types", route(async () => registryJson([...supportedSchemaTypes])))
  .get("/ids/:id", route(async (c) => {
    const id = idOf(c);
    const { subjects: _subjects, ...schema } = await readableSchema(c, id);
    return registryJson(await formatted(c, id, schema));
  }))
  .get("/ids/:id/schema", route(async (c) => rawSchema((await readableSchema(c, idOf(c))).schema)))
  .get("/ids/:id/subjects", route(async (c) => {
    const id = idOf(c);
    await readableSchema(c, id);
    const versions = unwrapRegistry(await registry(c).versionsOfSchema(id, flag(c, "deleted")));
    const principal = principalOf(c);
    return registryJson([...new Set(versions.map((row) => row.subject))].filter((subject) => may(principal, "subject", subject, "describe")));
  }))
  .get("/ids/:id/versions", route(async (c) => {
    const id = idOf(c);
    await readableSchema(c, id);
    const principal = principalOf(c);
    const versions = unwrapRegistry(await registry(c).versionsOfSchema(id, flag(c, "deleted")));
    return registryJson(versions.filter((row) => may(principal, "subject", row.subject, "describe")));
  }));

/** /config and /mode: the global setting (no subject) or a subject's. */
function settingRoutes(kind: "config" | "mode") {
  const subjectFrom = (c: Context<RouterEnv>, operation: Operation): string | undefined => {
    if (c.req.param("subject") === undefined) {
      if (operation !== "describe") authorizeGlobal(c);
      return undefined;
    }
    const subject = subjectOf(c);
    authorizeSubject(c, subject, operation);
    return subject;
  };
  const get = route(async (c) => {
    const subject = subjectFrom(c, "describe");
    const defaultToGlobal = flag(c, "defaultToGlobal");
    if (kind === "config") return registryJson(unwrapRegistry(await registry(c).getConfig(subject, defaultToGlobal)));
    return registryJson(unwrapRegistry(await registry(c).getMode(subject, defaultToGlobal)));
  });
  const put = route(async (c) => {
    const subject = subjectFrom(c, "alter");
    if (kind === "config") return registryJson(unwrapRegistry(await registry(c).setConfig(subject, (await registryBody(c, configRequestSchema)).compatibility)));
    return registryJson(unwrapRegistry(await registry(c).setMode(subject, (await registryBody(c, modeRequestSchema)).mode, flag(c, "force"))));
  });
  const remove = route(async (c) => {
    const subject = subjectFrom(c, "alter");
    if (kind === "config") return registryJson(unwrapRegistry(await registry(c).deleteConfig(subject)));
    return registryJson(unwrapRegistry(await registry(c).deleteMode(subject!)));
  });
  const routes = new Hono<RouterEnv>().get("/", get).put("/", put).get("/:subject", get).put("/:subject", put).delete("/:subject", remove);
  // Confluent deletes the global config (back to the default) but not the global mode, which is only ever set.
  return kind === "config" ? routes.delete("/", remove) : routes;
}

const compatibilityRoutes = new Hono<RouterEnv>()
  .post("/subjects/:subject/versions/:version?", route(async (c) => {
    const subject = subjectOf(c);
    authorizeSubject(c, subject, "read");
    const body = await registryBody(c, schemaRequestSchema);
    const answer = unwrapRegistry(await registry(c).testCompatibility(subject, c.req.param("version"), body, flag(c, "normalize")));
    return registryJson(flag(c, "verbose") ? answer : { is_compatible: answer.is_compatible });
  }));

export const registryRoutes = new Hono<RouterEnv>()
  .use(
    "*",
    corsMiddleware({
      allowHeaders: ["Authorization", "Content-Type", "Accept"],
      exposeHeaders: ["Retry-After"],
      allowMethods: ["GET", "POST", "PUT", "DELETE", "OPTIONS"],
      maxAgeSeconds: 600,
    }),
  )
  .use("*", async (c, next) => {
    try {
      await authentication()(c, async () => void (await quotaMiddleware()(c, next)));
    } catch (error) {
      return registryErrorResponse(error);
    }
  })
  .get("/", route(async () => registryJson({})))
  .route("/subjects", subjectRoutes)
  .route("/schemas", schemaRoutes)
  .route("/config", settingRoutes("config"))
  .route("/mode", settingRoutes("mode"))
  .route("/compatibility", compatibilityRoutes)
  // Last: any other path or method below /registry, in Confluent's error shape rather than /v1's.
  .all("*", (c) => unservedResponse(c.req.path.slice(registryBasePath.length) || "/"));

let allowedMethods: ((path: string) => string[]) | undefined;

/** A path the registry serves with other methods is 405 with Allow, as Confluent's answers; any other is 404. */
function unservedResponse(path: string): Response {
  allowedMethods ??= allowedMethodsOf(registryRoutes.routes, () => true); // built at the first use, every route added; every path answers CORS preflight
  const allow = allowedMethods(path);
  if (allow.length === 0) return registryErrorResponse(new RegistryError("NOT_FOUND", "HTTP 404 Not Found"));
  const response = registryErrorResponse(new RegistryError("METHOD_NOT_ALLOWED", "HTTP 405 Method Not Allowed"));
  response.headers.set("Allow", allow.join(", "));
  return response;
}
