/**
 * Schemas by id, parsed, for full validation and `decode=schema` (docs/schema-registry.md): each
 * router isolate asks the registry object for the texts of the ids it has not parsed yet (one call
 * for all of a request's), parses them with the registry's own parser and keeps them. An id names
 * one schema forever, so an entry never goes stale; the cache is bounded by
 * schemaParsedInIsolateMax entries and schemaParsedInIsolateCharsMax characters of text, oldest
 * use evicted first.
 */
import { TributaryError } from "../errors.ts";
import { schemaParsedInIsolateCharsMax, schemaParsedInIsolateMax } from "../limits.ts";
import { registryCalls } from "./registry-calls.ts";
import type { SchemaText } from "../registry/registry-admin.ts";
import { RegistryError, unwrapRegistry } from "../registry/registry-errors.ts";
import { parseSchema, schemaTypeOf, type ParsedSchema } from "../registry/schema-types.ts";

interface Entry {
  parsed: ParsedSchema;
  chars: number;
}

const cached = new Map<number, Entry>();
let cachedChars = 0;

function keep(id: number, entry: Entry): void {
  cached.set(id, entry);
  cachedChars += entry.chars;
  while (cached.size > schemaParsedInIsolateMax || cachedChars > schemaParsedInIsolateCharsMax) {
    const [oldest, evicted] = cached.entries().next().value!;
    cached.delete(oldest);
    cachedChars -= evicted.chars;
  }
}

function parseText(text: SchemaText): ParsedSchema | undefined {
  try {
    return parseSchema(schemaTypeOf(text.schemaType), text.schema, text.references);
  } catch (error) {
    if (error instanceof RegistryError) return undefined; // a type this isolate does not read: as unknown
    throw error;
  }
}

/** The parsed schemas of these ids; an id the registry does not have maps to undefined. REQUEST_TIMED_OUT when the registry cannot be asked. */
export async function parsedSchemas(env: Env, ids: Iterable<number>): Promise<Map<number, ParsedSchema | undefined>> {
  const found = new Map<number, ParsedSchema | undefined>();
  const missing: number[] = [];
  for (const id of ids) {
    const entry = cached.get(id);
    if (entry === undefined) {
      missing.push(id);
      continue;
    }
    cached.delete(id); // most recently used last
    cached.set(id, entry);
    found.set(id, entry.parsed);
  }
  if (missing.length === 0) return found;
  let texts: SchemaText[];
  try {
    texts = unwrapRegistry(await registryCalls(env).schemaTexts(missing));
  } catch (error) {
    if (error instanceof TributaryError) throw error;
    throw new TributaryError("REQUEST_TIMED_OUT", `the schema registry did not answer: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const id of missing) found.set(id, undefined);
  for (const text of texts) {
    const parsed = parseText(text);
    found.set(text.id, parsed);
    if (parsed) keep(text.id, { parsed, chars: text.schema.length + text.references.reduce((sum, reference) => sum + reference.schema.length, 0) });
  }
  return found;
}
