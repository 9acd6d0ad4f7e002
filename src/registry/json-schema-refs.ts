import type { JsonSchema, ParsedJsonSchema } from "./json-schema-types.ts";

/**
 * Where a JSON Schema's `$ref` points, across the documents a schema's references give
 * (docs/schema-registry.md, "References between JSON schemas"). As Confluent's registry and
 * serializers resolve them: each reference's document is known by its reference `name` (a URL
 * or a relative path such as "address.json"), by that name resolved against the referrer's base
 * URI, and by the `$id` it declares; a `$ref` is resolved against the base URI of the schema
 * object it sits in (the nearest `$id` above it, else the document's name, else nothing), and
 * its fragment is a JSON pointer into the document found ("address.json#/definitions/zip").
 * Anchors (`$anchor`, plain-name fragments) and `$dynamicRef` are not followed. Pure.
 */

/** Relative names resolve against this stand-in for "no base URI", which is taken off again. */
const placeholder = "https://tributary.invalid/";

/** `reference` resolved against `base` (RFC 3986); relative stays relative when the base is. As written when it is no URI. */
export function resolveUri(reference: string, base: string): string {
  try {
    const href = new URL(reference, new URL(base, placeholder)).href;
    return href.startsWith(placeholder) ? href.slice(placeholder.length) : href;
  } catch {
    return reference;
  }
}

/** A URI without its fragment, and the fragment with its "#" ("" when none). */
export function splitFragment(uri: string): { document: string; fragment: string } {
  const hash = uri.indexOf("#");
  return hash < 0 ? { document: uri, fragment: "" } : { document: uri.slice(0, hash), fragment: uri.slice(hash) };
}

/** A local `$ref`'s target in `root` ("#", "#/definitions/x", "#/$defs/x"), or undefined when it points nowhere. */
export function resolvePointer(root: JsonSchema, ref: string): JsonSchema | undefined {
  if (!ref.startsWith("#")) return undefined;
  let target: unknown = root;
  let pointer: string;
  try {
    pointer = decodeURIComponent(ref.slice(1));
  } catch {
    return undefined;
  }
  if (pointer === "") return root;
  if (!pointer.startsWith("/")) return undefined;
  for (const token of pointer.slice(1).split("/")) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (typeof target !== "object" || target === null || !Object.hasOwn(target, key)) return undefined;
    target = (target as Record<string, unknown>)[key];
  }
  return typeof target === "boolean" || (typeof target === "object" && target !== null && !Array.isArray(target)) ? (target as JsonSchema) : undefined;
}

/**
 * The schema `ref` names, written in the schema object `from` of `schema` (or one of the
 * documents its references give); undefined when it points nowhere. The resolved URI is looked
 * up first, then the `$ref` as written (a reference named "address.json" under a referrer whose
 * `$id` is a URL is still found, as Confluent's serializers find it).
 */
export function resolveRef(schema: ParsedJsonSchema, from: object, ref: string): JsonSchema | undefined {
  const target = splitFragment(resolveUri(ref, schema.bases.get(from) ?? ""));
  const written = splitFragment(ref);
  const document = schema.resources.get(target.document) ?? (written.document === "" ? undefined : schema.resources.get(written.document));
  return document === undefined ? undefined : resolvePointer(document, target.fragment || "#");
}
