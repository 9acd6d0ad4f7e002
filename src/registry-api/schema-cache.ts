import { registrySchemasCachedMax } from "../limits.ts";
import type { SchemaById } from "../registry/registry-admin.ts";

/**
 * Schemas by id kept in this router isolate: what a deserializer asks for every new id it meets.
 * An id names one schema forever (ids are never reused), so an entry never goes stale; the
 * subjects kept with it, for authorization, only grow, and a token refused by them is checked
 * again against the registry. Bounded by registrySchemasCachedMax, least recently used dropped.
 * A permanently deleted schema may still be answered by an isolate that cached it, until
 * evicted: the id still names that schema, nothing else.
 */
const cached = new Map<number, SchemaById>();

export function cachedSchema(id: number): SchemaById | undefined {
  const entry = cached.get(id);
  if (entry) {
    cached.delete(id);
    cached.set(id, entry);
  }
  return entry;
}

export function cacheSchema(id: number, schema: SchemaById): void {
  cached.delete(id);
  cached.set(id, schema);
  if (cached.size > registrySchemasCachedMax) cached.delete(cached.keys().next().value!);
}
