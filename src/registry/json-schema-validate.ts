import { jsonValidationStepsMax, schemaDatumDepthMax } from "../limits.ts";
import { DatumError, pointerToken } from "./datum-error.ts";
import { isSchemaObject } from "./json-schema-parse.ts";
import type { JsonSchema, ParsedJsonSchema } from "./json-schema-types.ts";
import { resolveRef } from "./json-schema-refs.ts";

/**
 * Checks a JSON document against a JSON Schema (drafts 4 to 2020-12), as
 * `tributary.*.schema.validation=full` does for JSON payloads (docs/schema-registry.md). An
 * interpreter of the schema, no code generated (workerd forbids it, which rules ajv out):
 * every assertion keyword of the drafts, the applicators (`allOf`, `anyOf`, `oneOf`, `not`,
 * `if`/`then`/`else`, `dependentSchemas`/`dependencies`, `$ref` to local pointers and into the
 * documents of the schema's references, src/registry/json-schema-refs.ts) and the
 * unevaluated keywords with the annotations they need. `format` is an annotation, not asserted
 * (2019-09 and later's default). In drafts 4 to 7, `$ref` beside other keywords hides them, as
 * those drafts say. Work is bounded: subschema evaluations by jsonValidationStepsMax, nesting by
 * schemaDatumDepthMax. The first failure found is thrown as a DatumError with its place.
 */

/** What a schema evaluated of an instance: the unevaluated keywords read it. */
interface Evaluated {
  properties: Set<string>;
  /** Items evaluated from the start (prefixItems, items, additionalItems), or all of them. */
  items: number;
  indexes: Set<number>;
}

const fresh = (): Evaluated => ({ properties: new Set(), items: 0, indexes: new Set() });

function merge(into: Evaluated, from: Evaluated): void {
  for (const name of from.properties) into.properties.add(name);
  into.items = Math.max(into.items, from.items);
  for (const index of from.indexes) into.indexes.add(index);
}

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  return typeof value;
}

function hasType(type: string, value: unknown): boolean {
  if (type === "integer") return typeof value === "number" && Number.isInteger(value);
  return jsonType(value) === type;
}

function equal(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((item, index) => equal(item, (b as unknown[])[index]));
  const keysA = Object.keys(a);
  const objectB = b as Record<string, unknown>;
  return keysA.length === Object.keys(objectB).length && keysA.every((key) => Object.hasOwn(objectB, key) && equal((a as Record<string, unknown>)[key], objectB[key]));
}

/** A string's length in code points, as JSON Schema counts it. */
function codePoints(text: string): number {
  let length = text.length;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        length--;
        index++;
      }
    }
  }
  return length;
}

const show = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

type Schema = { [keyword: string]: unknown };
type Failure = DatumError | undefined;

class Validator {
  #steps = 0;
  readonly #patterns = new Map<string, RegExp>();

  readonly schema: ParsedJsonSchema;
  /** Drafts 4 to 7: `$ref` hides its sibling keywords. */
  readonly refAlone: boolean;

  readonly #stepsMax: number;

  constructor(schema: ParsedJsonSchema, refAlone: boolean, stepsMax: number) {
    this.schema = schema;
    this.refAlone = refAlone;
    this.#stepsMax = stepsMax;
  }

  check(schema: unknown, value: unknown, path: string, depth: number, evaluated: Evaluated): Failure {
    if (++this.#steps > this.#stepsMax) {
      throw new DatumError(path, `validation took more than ${this.#stepsMax} steps (limits.ts, jsonValidationStepsMax)`);
    }
    if (depth > schemaDatumDepthMax) throw new DatumError(path, `the document nests deeper than ${schemaDatumDepthMax} (limits.ts, schemaDatumDepthMax)`);
    if (schema === true) return undefined;
    if (!isSchemaObject(schema)) return new DatumError(path, "no value is allowed here (the schema is false)");
    if (typeof schema.$ref === "string") {
      const failure = this.#inPlace(resolveRef(this.schema, schema, schema.$ref) ?? true, value, path, depth, evaluated);
      if (failure || this.refAlone) return failure;
    }
    return (
      this.#assertions(schema, value, path) ??
      this.#applicators(schema, value, path, depth, evaluated) ??
      (Array.isArray(value) ? this.#array(schema, value, path, depth, evaluated) : undefined) ??
      (isSchemaObject(value) ? this.#object(schema, value, path, depth, evaluated) : undefined)
    );
  }

  /** A subschema applied to the same instance: its annotations count only when it passes. */
  #inPlace(schema: unknown, value: unknown, path: string, depth: number, evaluated: Evaluated): Failure {
    const own = fresh();
    const failure = this.check(schema, value, path, depth + 1, own);
    if (!failure) merge(evaluated, own);
    return failure;
  }

  #child(schema: unknown, value: unknown, path: string, depth: number): Failure {
    return this.check(schema, value, path, depth + 1, fresh());
  }

  #assertions(schema: Schema, value: unknown, path: string): Failure {
    const fail = (reason: string) => new DatumError(path, reason);
    const { type } = schema;
    if (type !== undefined) {
      const types = Array.isArray(type) ? (type as string[]) : [type as string];
      if (!types.some((entry) => hasType(entry, value))) return fail(`${show(value)} is not of type ${types.join(" or ")}`);
    }
    if (Array.isArray(schema.enum) && !schema.enum.some((entry) => equal(entry, value))) return fail(`${show(value)} is not one of enum ${show(schema.enum)}`);
    if ("const" in schema && !equal(schema.const, value)) return fail(`${show(value)} is not const ${show(schema.const)}`);
    if (typeof value === "number") return this.#number(schema, value, fail);
    if (typeof value === "string") return this.#string(schema, value, fail);
    return undefined;
  }

  #number(schema: Schema, value: number, fail: (reason: string) => DatumError): Failure {
    const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = schema;
    if (typeof minimum === "number" && (exclusiveMinimum === true ? value <= minimum : value < minimum)) {
      return fail(`${value} is less than ${exclusiveMinimum === true ? "or equal to " : ""}minimum ${minimum}`);
    }
    if (typeof maximum === "number" && (exclusiveMaximum === true ? value >= maximum : value > maximum)) {
      return fail(`${value} is greater than ${exclusiveMaximum === true ? "or equal to " : ""}maximum ${maximum}`);
    }
    if (typeof exclusiveMinimum === "number" && value <= exclusiveMinimum) return fail(`${value} is not greater than exclusiveMinimum ${exclusiveMinimum}`);
    if (typeof exclusiveMaximum === "number" && value >= exclusiveMaximum) return fail(`${value} is not less than exclusiveMaximum ${exclusiveMaximum}`);
    if (typeof multipleOf === "number" && multipleOf > 0) {
      const quotient = value / multipleOf;
      if (!Number.isFinite(quotient) || Math.abs(quotient - Math.round(quotient)) > 1e-9 * Math.max(1, Math.abs(quotient))) return fail(`${value} is not a multiple of ${multipleOf}`);
    }
    return undefined;
  }

  #string(schema: Schema, value: string, fail: (reason: string) => DatumError): Failure {
    const { minLength, maxLength, pattern } = schema;
    if (typeof minLength === "number" || typeof maxLength === "number") {
      const length = codePoints(value);
      if (typeof minLength === "number" && length < minLength) return fail(`a string of ${length} characters is shorter than minLength ${minLength}`);
      if (typeof maxLength === "number" && length > maxLength) return fail(`a string of ${length} characters is longer than maxLength ${maxLength}`);
    }
    if (typeof pattern === "string" && !this.#regex(pattern).test(value)) return fail(`${show(value)} does not match pattern ${show(pattern)}`);
    return undefined;
  }

  #regex(pattern: string): RegExp {
    let regex = this.#patterns.get(pattern);
    if (!regex) {
      regex = new RegExp(pattern, "u"); // checked at registration (json-schema-parse.ts)
      this.#patterns.set(pattern, regex);
    }
    return regex;
  }

  #applicators(schema: Schema, value: unknown, path: string, depth: number, evaluated: Evaluated): Failure {
    if (Array.isArray(schema.allOf)) {
      for (const sub of schema.allOf) {
        const failure = this.#inPlace(sub, value, path, depth, evaluated);
        if (failure) return failure;
      }
    }
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const list = schema[keyword];
      if (!Array.isArray(list)) continue;
      const failures = list.map((sub) => this.#inPlace(sub, value, path, depth, evaluated));
      const passed = failures.filter((failure) => failure === undefined).length;
      if (passed === 0) return new DatumError(path, `matches none of ${keyword}'s ${list.length} schemas (the first: ${failures[0]!.message})`);
      if (keyword === "oneOf" && passed > 1) return new DatumError(path, `matches ${passed} of oneOf's schemas, not exactly one`);
    }
    if ("not" in schema && !this.#child(schema.not, value, path, depth)) return new DatumError(path, `${show(value)} matches the schema of "not"`);
    if ("if" in schema) {
      const branch = this.#inPlace(schema.if, value, path, depth, evaluated) === undefined ? "then" : "else";
      if (branch in schema) {
        const failure = this.#inPlace(schema[branch], value, path, depth, evaluated);
        if (failure) return failure;
      }
    }
    return undefined;
  }

  #array(schema: Schema, value: unknown[], path: string, depth: number, evaluated: Evaluated): Failure {
    const fail = (reason: string) => new DatumError(path, reason);
    const { minItems, maxItems, uniqueItems, contains } = schema;
    if (typeof minItems === "number" && value.length < minItems) return fail(`an array of ${value.length} items has fewer than minItems ${minItems}`);
    if (typeof maxItems === "number" && value.length > maxItems) return fail(`an array of ${value.length} items has more than maxItems ${maxItems}`);
    if (uniqueItems === true) {
      for (let index = 1; index < value.length; index++) {
        for (let other = 0; other < index; other++) {
          if (++this.#steps > this.#stepsMax) throw fail(`validation took more than ${this.#stepsMax} steps (limits.ts, jsonValidationStepsMax)`);
          if (equal(value[other], value[index])) return fail(`items ${other} and ${index} are equal (uniqueItems)`);
        }
      }
    }
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : Array.isArray(schema.items) ? schema.items : [];
    const rest = Array.isArray(schema.items) ? schema.additionalItems : schema.items;
    for (let index = 0; index < value.length; index++) {
      const sub = index < prefix.length ? prefix[index] : rest;
      if (sub === undefined) break;
      const failure = this.#child(sub, value[index], `${path}/${index}`, depth);
      if (failure) return failure;
      evaluated.items = Math.max(evaluated.items, index + 1);
    }
    if (contains !== undefined) {
      let matched = 0;
      value.forEach((item, index) => {
        if (this.#child(contains, item, `${path}/${index}`, depth) === undefined) {
          matched++;
          evaluated.indexes.add(index);
        }
      });
      const min = typeof schema.minContains === "number" ? schema.minContains : 1;
      if (matched < min) return fail(`${matched} items match "contains", fewer than ${min}`);
      if (typeof schema.maxContains === "number" && matched > schema.maxContains) return fail(`${matched} items match "contains", more than maxContains ${schema.maxContains}`);
    }
    if ("unevaluatedItems" in schema) {
      for (let index = evaluated.items; index < value.length; index++) {
        if (evaluated.indexes.has(index)) continue;
        const failure = this.#child(schema.unevaluatedItems, value[index], `${path}/${index}`, depth);
        if (failure) return failure;
      }
      evaluated.items = value.length;
    }
    return undefined;
  }

  #object(schema: Schema, value: Record<string, unknown>, path: string, depth: number, evaluated: Evaluated): Failure {
    const fail = (reason: string) => new DatumError(path, reason);
    const keys = Object.keys(value);
    const { minProperties, maxProperties, required, propertyNames } = schema;
    if (typeof minProperties === "number" && keys.length < minProperties) return fail(`an object of ${keys.length} properties has fewer than minProperties ${minProperties}`);
    if (typeof maxProperties === "number" && keys.length > maxProperties) return fail(`an object of ${keys.length} properties has more than maxProperties ${maxProperties}`);
    if (Array.isArray(required)) for (const name of required as string[]) if (!Object.hasOwn(value, name)) return fail(`required property ${show(name)} is missing`);
    const dependentRequired = { ...(isSchemaObject(schema.dependencies) ? schema.dependencies : {}), ...(isSchemaObject(schema.dependentRequired) ? schema.dependentRequired : {}) };
    for (const [name, needs] of Object.entries(dependentRequired)) {
      if (!Object.hasOwn(value, name) || !Array.isArray(needs)) continue;
      const missing = (needs as string[]).find((other) => !Object.hasOwn(value, other));
      if (missing !== undefined) return fail(`property ${show(missing)} is missing, which ${show(name)} requires`);
    }
    const dependentSchemas = { ...(isSchemaObject(schema.dependencies) ? schema.dependencies : {}), ...(isSchemaObject(schema.dependentSchemas) ? schema.dependentSchemas : {}) };
    for (const [name, sub] of Object.entries(dependentSchemas)) {
      if (!Object.hasOwn(value, name) || Array.isArray(sub)) continue;
      const failure = this.#inPlace(sub, value, path, depth, evaluated);
      if (failure) return failure;
    }
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const patterns = isSchemaObject(schema.patternProperties) ? Object.entries(schema.patternProperties) : [];
    for (const key of keys) {
      const at = `${path}/${pointerToken(key)}`;
      if (propertyNames !== undefined) {
        const failure = this.#child(propertyNames, key, at, depth);
        if (failure) return new DatumError(at, `the property name does not conform to propertyNames: ${failure.reason}`);
      }
      let matched = false;
      if (Object.hasOwn(properties, key)) {
        matched = true;
        const failure = this.#child(properties[key], value[key], at, depth);
        if (failure) return failure;
      }
      for (const [pattern, sub] of patterns) {
        if (!this.#regex(pattern).test(key)) continue;
        matched = true;
        const failure = this.#child(sub, value[key], at, depth);
        if (failure) return failure;
      }
      if (!matched && "additionalProperties" in schema) {
        if (schema.additionalProperties === false) return new DatumError(at, "the schema does not allow this property (additionalProperties is false)");
        const failure = this.#child(schema.additionalProperties, value[key], at, depth);
        if (failure) return failure;
        matched = true;
      }
      if (matched) evaluated.properties.add(key);
    }
    if ("unevaluatedProperties" in schema) {
      for (const key of keys) {
        if (evaluated.properties.has(key)) continue;
        const at = `${path}/${pointerToken(key)}`;
        if (schema.unevaluatedProperties === false) return new DatumError(at, "the schema does not allow this property (unevaluatedProperties is false)");
        const failure = this.#child(schema.unevaluatedProperties, value[key], at, depth);
        if (failure) return failure;
        evaluated.properties.add(key);
      }
    }
    return undefined;
  }
}

const olderDrafts = /draft-0[4-7]\/schema/;

/** Throws a DatumError naming where `value` does not conform to the schema. */
export function validateJson(schema: ParsedJsonSchema, value: unknown, stepsMax = jsonValidationStepsMax): void {
  const { root } = schema;
  const draft = isSchemaObject(root) && typeof root.$schema === "string" ? root.$schema : "";
  const failure = new Validator(schema, olderDrafts.test(draft), stepsMax).check(root, value, "", 0, fresh());
  if (failure) throw failure;
}
