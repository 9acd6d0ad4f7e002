/**
 * Bounds of the schema registry (src/registry/, src/objects/schema-registry.ts,
 * docs/schema-registry.md): what one schema, one subject and the whole registry may hold.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

/**
 * Bytes of one schema's text (UTF-8). Real Avro schemas are a few KiB; the largest in the wild
 * (generated from wide tables) reach a few hundred. 256 KiB leaves room for those while one
 * schema stays a single SQLite row far under the platform's 2 MB, and one parse and one
 * compatibility check of it stay within a request's CPU budget.
 */
export const registrySchemaBytesMax = 256 * 1024;

/** Bytes of a registry request's body: a schema escaped inside JSON (each byte up to 6) plus its references. */
export const registryRequestBytesMax = 2 * 1024 * 1024;

/**
 * Subjects in one registry, soft-deleted ones included. The registry is one object (one thread),
 * and GET /subjects answers all of them in one body: 10,000 subjects is a few hundred KiB of
 * answer, as many as a large Kafka estate's topics times key and value.
 */
export const registrySubjectsMax = 10_000;

/**
 * Versions of one subject, soft-deleted ones included. A transitive compatibility check parses
 * and compares every version, so this bounds the work of one registration; formats that evolve
 * weekly for years stay far under it.
 */
export const registryVersionsPerSubjectMax = 1_000;

/** References one schema names directly: each is a lookup and a parse at registration. */
export const registryReferencesPerSchemaMax = 100;

/**
 * How deep references may nest (a schema referencing one that references another…). Resolving
 * them is recursive; the bound keeps the recursion and the schemas loaded for one parse small.
 */
export const registryReferenceDepthMax = 16;

/**
 * References resolved for one schema, counted through every level (a reference shared by two
 * others counts twice: the tree is resolved and parsed as a tree). Depth and width alone allow
 * 100^16 of them; a registration past this bound is refused, so every stored schema resolves
 * within it.
 */
export const registryResolvedReferencesMax = 1_000;

/** Nesting of one Avro schema's types (records in arrays in unions…): the parser and the checks recurse on it. */
export const registryAvroNestingDepthMax = 64;

/** Schemas by id cached in each router isolate: ids are immutable, so entries never go stale; the bound is memory. */
export const registrySchemasCachedMax = 1_000;

/** Parsed schemas kept by the registry object between requests (a transitive check parses every version). */
export const registryParsedSchemasCachedMax = 2_000;

/**
 * Bytes of schema text whose parsed forms the registry object keeps (a parsed graph is a few
 * times its text): 16 MiB keeps a few hundred large schemas and thousands of usual ones while
 * the object stays far under an isolate's 128 MB. A transitive check over more is parsed again
 * on each registration, which costs CPU, never memory.
 */
export const registryParsedSchemaBytesCachedMax = 16 * 1024 * 1024;

/** Characters of a subject name: topic names (≤ 249) with a record's full name after them (TopicRecordNameStrategy) fit easily. */
export const registrySubjectLengthMax = 1_000;

/**
 * Schema ids whose subjects each router isolate keeps for schema id validation
 * (src/data-plane/schema-id-checks.ts). An id names one schema forever, but the subjects holding
 * it change; an entry is a few subject names, so the bound is memory, as for the schemas cache.
 */
export const schemaValidationIdsCachedMax = 1_000;

/**
 * How long an isolate takes a schema id's subjects as they were looked up (ms). A subject that
 * gained the id is seen at once (a miss is looked up again before a record is refused), so this
 * is only how long a deletion (soft or permanent) may still admit records in an isolate that
 * cached the id before it: 10 s, the order of the metadata cache's 5 s, costs each isolate one
 * registry call per id in use every 10 s, on the produce that finds the entry old.
 */
export const schemaValidationSubjectsFreshMs = 10_000;

/**
 * Distinct schema ids one produce request may name on a topic with validation on. Each one not
 * cached is looked up in the registry object (in one call per request); a producer writes with a
 * handful of schemas (one per record type), so 100 is far above any real request while a request
 * crafted with thousands of ids cannot make the registry's one thread read thousands of rows.
 */
export const schemaValidationIdsPerRequestMax = 100;

/**
 * Values (record fields, array and map items) one Avro datum may hold
 * (`tributary.*.schema.validation=full`, `decode=schema`): a block gives its item count off the
 * wire, and an item of a type that takes no bytes (null, an empty record) costs none, so a few
 * bytes could ask for billions of items — work on produce, and memory and work on every read
 * that decodes it. Every other value takes at least a byte, so a datum may hold
 * avroDatumValuesSlack + avroDatumValuesPerByte values per byte of data (room for records with
 * some null-typed fields), and never more than avroDatumValuesMax (a decoded value is a few dozen
 * bytes of the isolate's 128 MB).
 */
export const avroDatumValuesMax = 2 * 1024 * 1024;
export const avroDatumValuesPerByte = 2;
export const avroDatumValuesSlack = 1_024;

/**
 * Nesting of one decoded datum (a recursive record inside itself, arrays of arrays…) and of one
 * JSON document checked against its JSON Schema: the decoder and the validator recurse on it,
 * and 256 keeps them far inside a JavaScript stack while real data nests a few levels.
 */
export const schemaDatumDepthMax = 256;

/**
 * Subschema evaluations one JSON document's validation may take: `anyOf`, `oneOf`, `contains`
 * and `$ref` can make a document be checked many times over, so the work is bounded as a count,
 * not only by the document's size. A usual document takes a few per value.
 */
export const jsonValidationStepsMax = 1_000_000;

/**
 * Parsed schemas each router isolate keeps for full validation and `decode=schema`
 * (src/data-plane/parsed-schemas.ts): an id names one schema forever, so entries never go
 * stale; the bounds are memory (a parsed graph is a few times its text).
 */
export const schemaParsedInIsolateMax = 500;
export const schemaParsedInIsolateCharsMax = 8 * 1024 * 1024;

/**
 * Bytes of keys and values one produce request holds for full validation until its schemas are
 * fetched and its data read: a compressed batch is inflated to be scanned, and with full
 * validation its records stay in memory until the check (up to decompressedBatchBytesMax per
 * batch, against a 16 MiB body of batches). 32 MiB keeps a request's share of an isolate's 128 MB
 * bounded while any uncompressed request (at most 16 MiB) fits.
 */
export const schemaFullValidationBytesMax = 32 * 1024 * 1024;

/**
 * Nesting of one `.proto` file: messages in messages, and the braces of an option's aggregate
 * value. The parser, the printer and the descriptor encoder recurse on it; protoc itself stops
 * far below this in practice.
 */
export const registryProtoNestingDepthMax = 64;
