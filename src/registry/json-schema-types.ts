/** A JSON Schema as the registry holds it parsed (src/registry/json-schema-parse.ts makes it; json-schema-refs.ts resolves in it). */

export type JsonSchema = boolean | { [keyword: string]: unknown };

export interface ParsedJsonSchema {
  /** The root, against which local `$ref`s ("#/definitions/x", "#/$defs/x", "#") resolve. */
  root: JsonSchema;
  /** Schema resources by URI without fragment: the root, each `$id`'d subschema, the references' documents (and theirs). */
  resources: ReadonlyMap<string, JsonSchema>;
  /** The base URI of each schema object, its own documents' and its references' ("" when none). */
  bases: ReadonlyMap<object, string>;
}

/** A reference's document, parsed, under the reference's name. */
export interface JsonReferenced {
  name: string;
  json: ParsedJsonSchema;
}
