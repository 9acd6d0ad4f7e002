import type { ProtoEnum, ProtoExtend, ProtoField, ProtoFile, ProtoMessage, ProtoOption, ProtoReserved, ProtoService } from "./proto-types.ts";

/**
 * A parsed `.proto` file printed back as text: the form the registry stores, so that two texts
 * that differ only in comments, whitespace and layout are one schema (one id; a lookup finds
 * it). Declarations keep their order. The normalized form (`normalize=true`) further sorts
 * imports and options by name, fields by number (a oneof where its lowest field is), reserved
 * ranges, and writes every message and enum type by its full name (`.pkg.Type`): two files
 * that declare the same thing in a different order or with differently qualified type names
 * print the same. Pure.
 */

const fieldNumberMax = 536_870_911;

function optionText({ name, value }: ProtoOption): string {
  return `${name} = ${value.kind === "string" ? JSON.stringify(value.text) : value.text}`;
}

class Printer {
  readonly #normalize: boolean;
  readonly #lines: string[] = [];

  constructor(normalize: boolean) {
    this.#normalize = normalize;
  }

  get text(): string {
    return `${this.#lines.join("\n")}\n`;
  }

  #line(indent: number, text: string): void {
    this.#lines.push(`${"  ".repeat(indent)}${text}`);
  }

  #options(options: readonly ProtoOption[]): ProtoOption[] {
    return this.#normalize ? [...options].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)) : [...options];
  }

  #optionLines(indent: number, options: readonly ProtoOption[]): void {
    for (const option of this.#options(options)) this.#line(indent, `option ${optionText(option)};`);
  }

  #bracket(options: readonly ProtoOption[]): string {
    return options.length === 0 ? "" : ` [${this.#options(options).map(optionText).join(", ")}]`;
  }

  #typeName(field: ProtoField): string {
    if (!this.#normalize || !field.resolved || field.resolved.kind === "scalar") return field.type;
    return `.${field.resolved.name}`;
  }

  #field(indent: number, field: ProtoField, inOneof: boolean): void {
    const type = field.mapKey !== undefined ? `map<${field.mapKey}, ${this.#typeName(field)}>` : this.#typeName(field);
    const label = field.label && !inOneof ? `${field.label} ` : "";
    this.#line(indent, `${label}${type} ${field.name} = ${field.number}${this.#bracket(field.options)};`);
  }

  #reserved(indent: number, keyword: string, reserved: ProtoReserved, max: number): void {
    const ranges = this.#normalize ? [...reserved.ranges].sort((a, b) => a[0] - b[0]) : reserved.ranges;
    if (ranges.length > 0) {
      this.#line(indent, `${keyword} ${ranges.map(([start, end]) => (start === end ? `${start}` : `${start} to ${end === max ? "max" : end}`)).join(", ")};`);
    }
    const names = this.#normalize ? [...reserved.names].sort() : reserved.names;
    if (names.length > 0 && keyword === "reserved") this.#line(indent, `reserved ${names.map((name) => JSON.stringify(name)).join(", ")};`);
  }

  #fields(indent: number, message: ProtoMessage): void {
    const fields = this.#normalize ? [...message.fields].sort((a, b) => a.number - b.number) : message.fields;
    const printed = new Set<number>();
    for (const field of fields) {
      if (field.oneof === undefined) {
        this.#field(indent, field, false);
        continue;
      }
      if (printed.has(field.oneof)) continue;
      printed.add(field.oneof);
      const oneof = message.oneofs[field.oneof]!;
      this.#line(indent, `oneof ${oneof.name} {`);
      this.#optionLines(indent + 1, oneof.options);
      for (const member of fields) if (member.oneof === field.oneof) this.#field(indent + 1, member, true);
      this.#line(indent, "}");
    }
  }

  message(indent: number, message: ProtoMessage): void {
    this.#line(indent, `message ${message.name} {`);
    this.#optionLines(indent + 1, message.options);
    this.#reserved(indent + 1, "reserved", message.reserved, fieldNumberMax);
    this.#reserved(indent + 1, "extensions", { ranges: message.extensionRanges, names: [] }, fieldNumberMax);
    this.#fields(indent + 1, message);
    for (const nested of message.messages) this.message(indent + 1, nested);
    for (const declared of message.enums) this.enum(indent + 1, declared);
    for (const extend of message.extends) this.extend(indent + 1, extend);
    this.#line(indent, "}");
  }

  enum(indent: number, declared: ProtoEnum): void {
    this.#line(indent, `enum ${declared.name} {`);
    this.#optionLines(indent + 1, declared.options);
    this.#reserved(indent + 1, "reserved", declared.reserved, 2 ** 31 - 1);
    for (const value of declared.values) this.#line(indent + 1, `${value.name} = ${value.number}${this.#bracket(value.options)};`);
    this.#line(indent, "}");
  }

  extend(indent: number, extend: ProtoExtend): void {
    this.#line(indent, `extend ${this.#normalize && extend.resolvedExtendee ? `.${extend.resolvedExtendee}` : extend.extendee} {`);
    for (const field of extend.fields) this.#field(indent + 1, field, false);
    this.#line(indent, "}");
  }

  service(service: ProtoService): void {
    this.#line(0, `service ${service.name} {`);
    this.#optionLines(1, service.options);
    for (const method of service.methods) {
      const input = this.#normalize && method.resolvedInput ? `.${method.resolvedInput}` : method.input;
      const output = this.#normalize && method.resolvedOutput ? `.${method.resolvedOutput}` : method.output;
      const head = `rpc ${method.name}(${method.clientStreaming ? "stream " : ""}${input}) returns (${method.serverStreaming ? "stream " : ""}${output})`;
      if (method.options.length === 0) this.#line(1, `${head};`);
      else {
        this.#line(1, `${head} {`);
        this.#optionLines(2, method.options);
        this.#line(1, "}");
      }
    }
    this.#line(0, "}");
  }

  file(file: ProtoFile): void {
    this.#line(0, `syntax = "${file.syntax}";`);
    if (file.package) this.#line(0, `package ${file.package};`);
    const imports = this.#normalize ? [...file.imports].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) : file.imports;
    for (const { path, kind } of imports) this.#line(0, `import ${kind ? `${kind} ` : ""}${JSON.stringify(path)};`);
    this.#optionLines(0, file.options);
    for (const message of file.messages) this.message(0, message);
    for (const declared of file.enums) this.enum(0, declared);
    for (const service of file.services) this.service(service);
    for (const extend of file.extends) this.extend(0, extend);
  }
}

/** The file as the registry stores it: canonical, or normalized (`normalize=true`). */
export function printProtoFile(file: ProtoFile, normalize: boolean): string {
  const printer = new Printer(normalize);
  printer.file(file);
  return printer.text;
}
