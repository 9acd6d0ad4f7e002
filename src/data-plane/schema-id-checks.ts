/**
 * The second half of schema id validation (docs/schema-registry.md, "Records checked before they
 * are written"): before the router forwards a produce to a topic with
 * `confluent.key/value.schema.validation=true`, every schema id its records name (collected by
 * src/topics/schema-id-refs.ts where the records were read) must be a schema registered under the
 * subject the topic's strategy gives. A refusal names the record: 400 INVALID_RECORD, nothing of
 * the request written.
 *
 * Per router isolate, each id's subjects (and record name) are cached: at most
 * schemaValidationIdsCachedMax ids, each taken as fresh for schemaValidationSubjectsFreshMs. An id
 * never changes its schema, but subjects gain and lose it: an entry that does not admit a record is
 * looked up again before the record is refused, so a schema just registered under the subject is
 * taken at once, and a deletion reaches an isolate within the freshness bound. Uncached ids are
 * looked up together: at most two registry calls per request (the stale ones, then the misses).
 */
import { TributaryError } from "../errors.ts";
import { schemaValidationIdsCachedMax, schemaValidationIdsPerRequestMax, schemaValidationSubjectsFreshMs } from "../limits.ts";
import { registryCalls } from "./registry-calls.ts";
import type { SchemaSubjects } from "../registry/registry-admin.ts";
import { unwrapRegistry } from "../registry/registry-errors.ts";
import { DatumError } from "../registry/datum-error.ts";
import { checkDatum } from "../registry/datum-read.ts";
import { subjectFor, wireHeaderBytes } from "../registry/wire-format.ts";
import { parsedSchemas } from "./parsed-schemas.ts";
import { schemaRefusal, type SchemaIdRef } from "../topics/schema-id-refs.ts";

interface Entry {
  schema: SchemaSubjects;
  subjects: ReadonlySet<string>;
  fetchedAtMs: number;
}

/** By schema id, oldest lookup first. */
const cached = new Map<number, Entry>();

/** Looks the ids up in the registry; each found one is cached and put in `known`, each missing one put in `known` as undefined. */
async function lookUp(env: Env, ids: readonly number[], nowMs: number, known: Map<number, Entry | undefined>): Promise<void> {
  let found: SchemaSubjects[];
  try {
    found = unwrapRegistry(await registryCalls(env).schemasForValidation([...ids]));
  } catch (error) {
    if (error instanceof TributaryError) throw error;
    throw new TributaryError("REQUEST_TIMED_OUT", `the schema registry did not answer the schema id check: ${error instanceof Error ? error.message : String(error)}`);
  }
  for (const id of ids) known.set(id, undefined);
  for (const schema of found) {
    const entry = { schema, subjects: new Set(schema.subjects), fetchedAtMs: nowMs };
    known.set(schema.id, entry);
    cached.delete(schema.id);
    cached.set(schema.id, entry);
  }
  while (cached.size > schemaValidationIdsCachedMax) cached.delete(cached.keys().next().value!);
}

/** Why `entry` does not admit the record's key or value, or undefined when it does. */
function refusalReason(ref: SchemaIdRef, topic: string, entry: Entry | undefined): string | undefined {
  const id = ref.schemaId;
  if (entry === undefined) return `names schema id ${id}, which the schema registry does not have`;
  // A Protobuf record names its message by its message indexes (Confluent's serializers register that message's name).
  const recordName = entry.schema.recordNames !== undefined ? entry.schema.recordNames[ref.messagePath ?? "0"] : entry.schema.recordName;
  const subject = subjectFor(ref.strategy, topic, ref.isKey, recordName);
  if (subject === undefined) {
    if (entry.schema.recordNames !== undefined) return `names schema id ${id}, a PROTOBUF schema with no message at message indexes ${ref.messagePath ?? "(none)"}, which ${ref.strategy} needs for its subject`;
    return `names schema id ${id}, a ${entry.schema.schemaType} schema without a record name (a JSON schema's title), which ${ref.strategy} needs for its subject`;
  }
  if (!entry.subjects.has(subject)) return `names schema id ${id}, which is not registered under subject ${JSON.stringify(subject)} (${ref.strategy})`;
  return undefined;
}

/**
 * A request's verdicts by key or value and id (a topic's key and value each have one strategy):
 * its records mostly share a few ids, each judged once.
 */
type Verdicts = Map<number | string, string | undefined>;

function verdict(verdicts: Verdicts, ref: SchemaIdRef, topic: string, known: ReadonlyMap<number, Entry | undefined>): string | undefined {
  const id = ref.isKey ? -ref.schemaId - 1 : ref.schemaId;
  // Protobuf records of one id may name different messages, so different subjects.
  const slot = ref.messagePath === undefined ? id : `${id}/${ref.messagePath}`;
  if (verdicts.has(slot)) return verdicts.get(slot);
  const reason = refusalReason(ref, topic, known.get(ref.schemaId));
  verdicts.set(slot, reason);
  return reason;
}

/** The request's distinct ids, within schemaValidationIdsPerRequestMax. */
function distinctIds(refs: readonly SchemaIdRef[]): Set<number> {
  const ids = new Set<number>();
  for (const ref of refs) {
    if (ids.has(ref.schemaId)) continue;
    if (ids.size === schemaValidationIdsPerRequestMax) {
      throw schemaRefusal(ref, `names schema id ${ref.schemaId}, past the ${schemaValidationIdsPerRequestMax} distinct schema ids one request may name (limits.ts, schemaValidationIdsPerRequestMax)`);
    }
    ids.add(ref.schemaId);
  }
  return ids;
}

/**
 * Resolves when every ref's schema id is registered under its subject; throws INVALID_RECORD
 * naming the first record (in request order) that is not, or REQUEST_TIMED_OUT (retriable) when
 * the registry cannot be asked.
 */
export async function checkSchemaIds(env: Env, topic: string, refs: readonly SchemaIdRef[], nowMs = Date.now()): Promise<void> {
  if (refs.length === 0) return;
  const known = new Map<number, Entry | undefined>();
  const stale: number[] = [];
  for (const id of distinctIds(refs)) {
    const entry = cached.get(id);
    if (entry !== undefined && nowMs - entry.fetchedAtMs < schemaValidationSubjectsFreshMs) known.set(id, entry);
    else stale.push(id);
  }
  const lookedUp = new Set(stale);
  if (stale.length > 0) await lookUp(env, stale, nowMs, known);
  // A cached entry that refuses may predate the subject's registration of the id: asked again once.
  const missed = new Set<number>();
  const verdicts: Verdicts = new Map();
  for (const ref of refs) if (!lookedUp.has(ref.schemaId) && !missed.has(ref.schemaId) && verdict(verdicts, ref, topic, known) !== undefined) missed.add(ref.schemaId);
  if (missed.size > 0) {
    await lookUp(env, [...missed], nowMs, known);
    verdicts.clear();
  }
  for (const ref of refs) {
    const reason = verdict(verdicts, ref, topic, known);
    if (reason !== undefined) throw schemaRefusal(ref, reason);
  }
  const full = refs.filter((ref) => ref.payload !== undefined);
  if (full.length > 0) await checkData(env, full);
}

/**
 * Full validation (`tributary.*.schema.validation=full`), once every id is admitted: each
 * payload's data, after the header, read against its schema (parsed once per isolate,
 * src/data-plane/parsed-schemas.ts). The first record in request order that does not conform
 * refuses the request, naming where in the datum it fails.
 */
async function checkData(env: Env, refs: readonly SchemaIdRef[]): Promise<void> {
  const schemas = await parsedSchemas(env, new Set(refs.map((ref) => ref.schemaId)));
  for (const ref of refs) {
    const schema = schemas.get(ref.schemaId);
    if (schema === undefined) throw schemaRefusal(ref, `names schema id ${ref.schemaId}, whose schema the schema registry cannot give for full validation`);
    const { bytes, start, length } = ref.payload!;
    try {
      checkDatum(schema, bytes, start + wireHeaderBytes, start + length);
    } catch (error) {
      if (!(error instanceof DatumError)) throw error;
      throw schemaRefusal(ref, `does not conform to schema id ${ref.schemaId} (${schema.schemaType}) ${error.message}`);
    }
  }
}
