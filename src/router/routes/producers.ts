import { Hono } from "hono";
import type { RouterEnv } from "../context.ts";
import { TributaryError, unwrap } from "../../errors.ts";
import { adminRequestBytesMax } from "../../limits.ts";
import { controllerStub } from "../../objects/stubs.ts";
import { readBodyBytes } from "../request-body.ts";

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false });

/** The body is optional: nothing, or a JSON object (fields for later versions, ignored). */
async function checkBody(request: Request): Promise<void> {
  const bytes = await readBodyBytes(request, { maxBytes: adminRequestBytesMax });
  if (bytes.byteLength === 0) return;
  let json: unknown;
  try {
    json = JSON.parse(utf8.decode(bytes));
  } catch {
    throw new TributaryError("INVALID_REQUEST", "the request body is not valid JSON");
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new TributaryError("INVALID_REQUEST", "the request body is a JSON object, or nothing");
  }
}

/**
 * `POST /v1/producers` (API.md, Produce): an idempotent producer's id and epoch, from the
 * controller (Kafka's InitProducerId, without transactions).
 */
export const producerRoutes = new Hono<RouterEnv>().post("/", async (c) => {
  await checkBody(c.req.raw);
  const identity = unwrap(await controllerStub(c.env).initProducerId());
  return c.json(identity, 201);
});
