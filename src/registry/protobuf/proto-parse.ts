import { registryProtoNestingDepthMax } from "../../limits.ts";
import { describe, protoInvalid, protoTokens, TokenCursor } from "./proto-tokens.ts";
import type {
  ProtoEnum,
  ProtoExtend,
  ProtoField,
  ProtoFile,
  ProtoImportKind,
  ProtoLabel,
  ProtoMessage,
  ProtoOption,
  ProtoOptionValue,
  ProtoReserved,
  ProtoService,
} from "./proto-types.ts";

/**
 * Parses `.proto` text (protobuf's language specification for proto2 and proto3) into the
 * shapes of proto-types.ts: syntax, package, imports, options (custom ones kept as written),
 * messages with nested messages and enums, fields with labels and numbers, maps, oneofs,
 * reserved ranges and names, extension ranges, `extend` blocks, enums and services. Proto2
 * groups and editions are refused. Checks what does not need other files (field numbers and
 * their ranges, duplicates, reserved numbers and names, proto3's rules); type names are resolved
 * afterwards (proto-resolve.ts). Any fault is 42201 naming its line. Pure.
 */

const fieldNumberMax = 536_870_911;
const int32Min = -(2 ** 31);
const int32Max = 2 ** 31 - 1;

function integer(text: string, line: number): number {
  let value: number;
  if (/^0[xX][0-9A-Fa-f]+$/.test(text)) value = parseInt(text.slice(2), 16);
  else if (/^0[0-7]+$/.test(text)) value = parseInt(text.slice(1), 8);
  else if (/^(0|[1-9][0-9]*)$/.test(text)) value = Number(text);
  else protoInvalid(line, `${text} is not an integer`);
  if (!Number.isSafeInteger(value)) protoInvalid(line, `${text} is too large`);
  return value;
}

function signedInteger(cursor: TokenCursor, what: string): number {
  const negative = cursor.accept("-");
  const token = cursor.next(what);
  if (token.kind !== "number") protoInvalid(token.line, `expected ${what}, found ${describe(token)}`);
  const value = integer(token.text, token.line);
  return negative ? -value : value;
}

/** An option's value; an aggregate `{…}` as its tokens joined (strings quoted), braces balanced within the depth bound. */
function optionValue(cursor: TokenCursor): ProtoOptionValue {
  const line = cursor.line;
  if (cursor.peek()?.kind === "string") return { kind: "string", text: cursor.string("an option's value") };
  if (cursor.accept("{")) {
    const parts: string[] = ["{"];
    let depth = 1;
    while (depth > 0) {
      const token = cursor.next("the end of an aggregate option value");
      if (token.kind === "string") parts.push(JSON.stringify(token.text));
      else parts.push(token.text);
      if (token.kind === "symbol" && (token.text === "{" || token.text === "<")) depth += 1;
      if (token.kind === "symbol" && (token.text === "}" || token.text === ">")) depth -= 1;
      if (depth > registryProtoNestingDepthMax) protoInvalid(token.line, `an option value nests deeper than ${registryProtoNestingDepthMax} (limits.ts, registryProtoNestingDepthMax)`);
    }
    return { kind: "aggregate", text: parts.join(" ") };
  }
  const sign = cursor.accept("-") ? "-" : cursor.accept("+") ? "" : "";
  const token = cursor.next("an option's value");
  if (token.kind === "number") return { kind: "number", text: `${sign}${token.text}` };
  if (token.kind === "identifier") {
    if (sign && token.text !== "inf" && token.text !== "nan") protoInvalid(line, `-${token.text} is not a value`);
    return sign ? { kind: "number", text: `${sign}${token.text}` } : { kind: "identifier", text: token.text };
  }
  protoInvalid(token.line, `expected an option's value, found ${describe(token)}`);
}

function optionName(cursor: TokenCursor): string {
  let name = "";
  if (cursor.accept("(")) {
    name = `(${cursor.identifier("an extension's name")})`;
    cursor.expect(")");
    if (cursor.peek()?.kind === "identifier" && cursor.peek()!.text.startsWith(".")) name += cursor.identifier("an option's field");
  } else name = cursor.identifier("an option's name");
  return name;
}

/** `name = value` (after `option`, or inside `[…]`). */
function option(cursor: TokenCursor): ProtoOption {
  const name = optionName(cursor);
  cursor.expect("=");
  return { name, value: optionValue(cursor) };
}

/** `[a = 1, b = 2]` after a field or enum value, or nothing. */
function bracketOptions(cursor: TokenCursor): ProtoOption[] {
  if (!cursor.accept("[")) return [];
  const options = [option(cursor)];
  while (cursor.accept(",")) options.push(option(cursor));
  cursor.expect("]");
  return options;
}

function reservedOrRanges(cursor: TokenCursor, reserved: ProtoReserved, max: number, what: string): void {
  if (cursor.peek()?.kind === "string") {
    do reserved.names.push(cursor.string("a reserved name"));
    while (cursor.accept(","));
    return;
  }
  do {
    const line = cursor.line;
    const start = signedInteger(cursor, what);
    let end = start;
    if (cursor.accept("to")) end = cursor.accept("max") ? max : signedInteger(cursor, what);
    if (end < start) protoInvalid(line, `the range ${start} to ${end} is empty`);
    reserved.ranges.push([start, end]);
  } while (cursor.accept(","));
}

export function checkFieldNumber(number: number, line: number): void {
  if (number < 1 || number > fieldNumberMax) protoInvalid(line, `field number ${number} is outside 1 to ${fieldNumberMax}`);
  if (number >= 19_000 && number <= 19_999) protoInvalid(line, `field number ${number} is in 19000 to 19999, which protobuf reserves for itself`);
}

class Parser {
  readonly #cursor: TokenCursor;
  readonly #file: ProtoFile;

  constructor(text: string) {
    this.#cursor = new TokenCursor(protoTokens(text));
    this.#file = { syntax: "proto2", syntaxWritten: false, package: "", imports: [], options: [], messages: [], enums: [], services: [], extends: [] };
  }

  parse(): ProtoFile {
    const cursor = this.#cursor;
    if (cursor.peek()?.text === "edition") protoInvalid(cursor.line, "protobuf editions are not supported; write syntax = \"proto2\" or \"proto3\"");
    if (cursor.accept("syntax")) {
      const line = cursor.line;
      cursor.expect("=");
      const syntax = cursor.string("the syntax");
      if (syntax !== "proto2" && syntax !== "proto3") protoInvalid(line, `syntax ${JSON.stringify(syntax)} is neither "proto2" nor "proto3"`);
      cursor.expect(";");
      this.#file.syntax = syntax;
      this.#file.syntaxWritten = true;
    }
    let packageLine = 0;
    while (!cursor.done) {
      const line = cursor.line;
      const keyword = cursor.next("a declaration");
      if (keyword.kind === "symbol" && keyword.text === ";") continue;
      if (keyword.kind !== "identifier") protoInvalid(line, `expected a declaration, found ${describe(keyword)}`);
      if (keyword.text === "import") this.#import();
      else if (keyword.text === "package") {
        if (packageLine) protoInvalid(line, `a second package declaration (the first on line ${packageLine})`);
        packageLine = line;
        this.#file.package = cursor.identifier("the package's name");
        if (this.#file.package.startsWith(".")) protoInvalid(line, "a package's name does not start with a dot");
        cursor.expect(";");
      } else if (keyword.text === "option") {
        this.#file.options.push(option(cursor));
        cursor.expect(";");
      } else if (keyword.text === "message") this.#file.messages.push(this.#message(this.#file.package, 1, line));
      else if (keyword.text === "enum") this.#file.enums.push(this.#enum(this.#file.package, line));
      else if (keyword.text === "service") this.#file.services.push(this.#service());
      else if (keyword.text === "extend") this.#file.extends.push(this.#extend());
      else protoInvalid(line, `expected a declaration (import, package, option, message, enum, service, extend), found "${keyword.text}"`);
    }
    return this.#file;
  }

  #import(): void {
    const cursor = this.#cursor;
    const kind: ProtoImportKind = cursor.accept("public") ? "public" : cursor.accept("weak") ? "weak" : "";
    const line = cursor.line;
    const path = cursor.string("the imported file's path");
    if (this.#file.imports.some((existing) => existing.path === path)) protoInvalid(line, `${path} is imported twice`);
    this.#file.imports.push({ path, kind });
    cursor.expect(";");
  }

  #message(scope: string, depth: number, line: number): ProtoMessage {
    const cursor = this.#cursor;
    if (depth > registryProtoNestingDepthMax) protoInvalid(line, `messages nest deeper than ${registryProtoNestingDepthMax} (limits.ts, registryProtoNestingDepthMax)`);
    const name = cursor.name("a message's name");
    const fullName = scope ? `${scope}.${name}` : name;
    const message: ProtoMessage = { name, fullName, package: this.#file.package, fields: [], oneofs: [], messages: [], enums: [], reserved: { ranges: [], names: [] }, extensionRanges: [], options: [], extends: [], line };
    cursor.expect("{");
    while (!cursor.accept("}")) {
      const at = cursor.line;
      const token = cursor.peek();
      if (token?.kind === "symbol" && token.text === ";") cursor.next(";");
      else if (cursor.accept("message")) message.messages.push(this.#message(fullName, depth + 1, at));
      else if (cursor.accept("enum")) message.enums.push(this.#enum(fullName, at));
      else if (cursor.accept("extend")) message.extends.push(this.#extend());
      else if (cursor.accept("option")) {
        message.options.push(option(cursor));
        cursor.expect(";");
      } else if (cursor.accept("reserved")) {
        reservedOrRanges(cursor, message.reserved, fieldNumberMax, "a field number");
        cursor.expect(";");
      } else if (cursor.accept("extensions")) {
        const ranges: ProtoReserved = { ranges: [], names: [] };
        reservedOrRanges(cursor, ranges, fieldNumberMax, "a field number");
        message.extensionRanges.push(...ranges.ranges);
        bracketOptions(cursor);
        cursor.expect(";");
      } else if (token?.text === "oneof" && cursor.peek(1)?.kind === "identifier" && cursor.peek(2)?.text === "{") {
        cursor.next("oneof");
        this.#oneof(message);
      } else message.fields.push(this.#field(true));
    }
    checkMessage(this.#file.syntax, message);
    return message;
  }

  #oneof(message: ProtoMessage): void {
    const cursor = this.#cursor;
    const index = message.oneofs.length;
    message.oneofs.push({ name: cursor.name("a oneof's name"), options: [] });
    cursor.expect("{");
    while (!cursor.accept("}")) {
      if (cursor.accept(";")) continue;
      if (cursor.accept("option")) {
        message.oneofs[index]!.options.push(option(cursor));
        cursor.expect(";");
        continue;
      }
      const field = this.#field(false);
      if (field.mapKey !== undefined) protoInvalid(field.line, `map field ${field.name} cannot be in a oneof`);
      message.fields.push({ ...field, oneof: index });
    }
    if (!message.fields.some((field) => field.oneof === index)) protoInvalid(cursor.line, `oneof ${message.oneofs[index]!.name} has no field`);
  }

  /** A field (labels allowed outside oneofs), a map field, or a refused group. */
  #field(labelled: boolean): ProtoField {
    const cursor = this.#cursor;
    const line = cursor.line;
    let label: ProtoLabel | undefined;
    const first = cursor.peek();
    if (labelled && first?.kind === "identifier" && ["optional", "required", "repeated"].includes(first.text) && cursor.peek(1)?.kind === "identifier") {
      label = cursor.next("a label").text as ProtoLabel;
    }
    let type: string;
    let mapKey: string | undefined;
    if (cursor.peek()?.text === "map" && cursor.peek(1)?.text === "<") {
      cursor.next("map");
      cursor.expect("<");
      mapKey = cursor.identifier("a map's key type");
      cursor.expect(",");
      type = cursor.identifier("a map's value type");
      cursor.expect(">");
      if (label !== undefined) protoInvalid(line, "a map field has no label");
    } else type = cursor.identifier("a field's type");
    if (type === "group") protoInvalid(line, "proto2 groups are not supported; declare a message and a field of its type");
    const name = cursor.name("a field's name");
    cursor.expect("=");
    const number = signedInteger(cursor, "a field number");
    checkFieldNumber(number, line);
    const options = bracketOptions(cursor);
    cursor.expect(";");
    return { name, number, ...(label ? { label } : {}), type, ...(mapKey !== undefined ? { mapKey } : {}), options, line };
  }

  #enum(scope: string, line: number): ProtoEnum {
    const cursor = this.#cursor;
    const name = cursor.name("an enum's name");
    const fullName = scope ? `${scope}.${name}` : name;
    const result: ProtoEnum = { name, fullName, values: [], reserved: { ranges: [], names: [] }, options: [], line };
    cursor.expect("{");
    while (!cursor.accept("}")) {
      const at = cursor.line;
      if (cursor.accept(";")) continue;
      if (cursor.accept("option")) {
        result.options.push(option(cursor));
        cursor.expect(";");
      } else if (cursor.accept("reserved")) {
        reservedOrRanges(cursor, result.reserved, int32Max, "an enum value's number");
        cursor.expect(";");
      } else {
        const valueName = cursor.name("an enum value's name");
        cursor.expect("=");
        const number = signedInteger(cursor, "an enum value's number");
        if (number < int32Min || number > int32Max) protoInvalid(at, `enum value ${valueName} = ${number} is not a 32-bit integer`);
        result.values.push({ name: valueName, number, options: bracketOptions(cursor) });
        cursor.expect(";");
      }
    }
    checkEnum(this.#file.syntax, result);
    return result;
  }

  #service(): ProtoService {
    const cursor = this.#cursor;
    const service: ProtoService = { name: cursor.name("a service's name"), methods: [], options: [] };
    cursor.expect("{");
    while (!cursor.accept("}")) {
      if (cursor.accept(";")) continue;
      if (cursor.accept("option")) {
        service.options.push(option(cursor));
        cursor.expect(";");
        continue;
      }
      const line = cursor.line;
      cursor.expect("rpc");
      const name = cursor.name("a method's name");
      cursor.expect("(");
      const clientStreaming = cursor.peek(1)?.text !== ")" && cursor.accept("stream");
      const input = cursor.identifier("a method's input type");
      cursor.expect(")");
      cursor.expect("returns");
      cursor.expect("(");
      const serverStreaming = cursor.peek(1)?.text !== ")" && cursor.accept("stream");
      const output = cursor.identifier("a method's output type");
      cursor.expect(")");
      const options: ProtoOption[] = [];
      if (cursor.accept("{")) {
        while (!cursor.accept("}")) {
          if (cursor.accept(";")) continue;
          cursor.expect("option");
          options.push(option(cursor));
          cursor.expect(";");
        }
      } else cursor.expect(";");
      service.methods.push({ name, input, output, clientStreaming, serverStreaming, options, line });
    }
    return service;
  }

  #extend(): ProtoExtend {
    const cursor = this.#cursor;
    const extendee = cursor.identifier("the extended message's name");
    const fields: ProtoField[] = [];
    cursor.expect("{");
    while (!cursor.accept("}")) {
      if (cursor.accept(";")) continue;
      fields.push(this.#field(true));
    }
    return { extendee, fields };
  }
}

function inRanges(ranges: readonly [number, number][], number: number): boolean {
  return ranges.some(([start, end]) => number >= start && number <= end);
}

export function checkMessage(syntax: ProtoFile["syntax"], message: ProtoMessage): void {
  const numbers = new Map<number, string>();
  const names = new Set<string>();
  for (const field of message.fields) {
    const what = `field ${message.fullName}.${field.name}`;
    if (names.has(field.name)) protoInvalid(field.line, `${what} is declared twice`);
    names.add(field.name);
    const other = numbers.get(field.number);
    if (other !== undefined) protoInvalid(field.line, `${what} has number ${field.number}, as ${other} has`);
    numbers.set(field.number, field.name);
    if (inRanges(message.reserved.ranges, field.number)) protoInvalid(field.line, `${what} has number ${field.number}, which is reserved`);
    if (message.reserved.names.includes(field.name)) protoInvalid(field.line, `${what} has a reserved name`);
    if (inRanges(message.extensionRanges, field.number)) protoInvalid(field.line, `${what} has number ${field.number}, in an extension range`);
    if (syntax === "proto3") {
      if (field.label === "required") protoInvalid(field.line, `${what} is required, which proto3 does not have`);
      if (field.options.some((option) => option.name === "default")) protoInvalid(field.line, `${what} has a default, which proto3 does not have`);
    } else if (field.label === undefined && field.oneof === undefined && field.mapKey === undefined) {
      protoInvalid(field.line, `${what} has no label (optional, required or repeated), which proto2 needs`);
    }
  }
  const nested = new Set<string>();
  for (const { name, line } of [...message.messages, ...message.enums]) {
    if (nested.has(name)) protoInvalid(line, `${message.fullName}.${name} is declared twice`);
    nested.add(name);
  }
}

export function checkEnum(syntax: ProtoFile["syntax"], declared: ProtoEnum): void {
  if (declared.values.length === 0) protoInvalid(declared.line, `enum ${declared.fullName} has no value`);
  if (syntax === "proto3" && declared.values[0]!.number !== 0) protoInvalid(declared.line, `enum ${declared.fullName}'s first value is not 0, as proto3 needs`);
  const aliases = declared.options.some((option) => option.name === "allow_alias" && option.value.text === "true");
  const numbers = new Map<number, string>();
  const names = new Set<string>();
  for (const value of declared.values) {
    if (names.has(value.name)) protoInvalid(declared.line, `enum ${declared.fullName} declares ${value.name} twice`);
    names.add(value.name);
    const other = numbers.get(value.number);
    if (other !== undefined && !aliases) protoInvalid(declared.line, `enum ${declared.fullName}'s ${value.name} has number ${value.number}, as ${other} has (allow_alias is not set)`);
    numbers.set(value.number, value.name);
    if (inRanges(declared.reserved.ranges, value.number) || declared.reserved.names.includes(value.name)) protoInvalid(declared.line, `enum ${declared.fullName}'s ${value.name} is reserved`);
  }
}

/** The file's declarations; a 42201 naming the line of the first fault. */
export function parseProtoText(text: string): ProtoFile {
  return new Parser(text).parse();
}
