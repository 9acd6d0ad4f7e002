import { RegistryError } from "../registry-errors.ts";

/**
 * The tokens of `.proto` text (protobuf's language specification, "Lexical elements"):
 * identifiers (dotted names kept whole: `foo.Bar`, `.foo.Bar`), numbers, string literals
 * (escapes decoded), and one-character symbols; `//` and `/* … *\/` comments skipped. Each token
 * has its line, for the 42201 errors that name it. Pure.
 */

export interface ProtoToken {
  kind: "identifier" | "number" | "string" | "symbol";
  text: string;
  line: number;
}

export function protoInvalid(line: number, message: string): never {
  throw new RegistryError("INVALID_SCHEMA", `Invalid schema: line ${line}: ${message}`);
}

const identifierStart = /[A-Za-z_]/;
const identifierPart = /[A-Za-z0-9_.]/;
const numberPart = /[A-Za-z0-9_.]/;
const symbols = new Set(["=", ";", "{", "}", "[", "]", "(", ")", "<", ">", ",", ":", "-", "+", "/"]);
const simpleEscapes: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", "'": "'", '"': '"', "?": "?" };

/** A string literal from `start` (its quote): the value and where it ends. */
function readString(text: string, start: number, line: number): { value: string; end: number } {
  const quote = text[start]!;
  let value = "";
  let index = start + 1;
  for (;;) {
    const char = text[index];
    if (char === undefined || char === "\n") protoInvalid(line, "a string literal is not closed");
    if (char === quote) return { value, end: index + 1 };
    if (char !== "\\") {
      value += char;
      index += 1;
      continue;
    }
    const next = text[index + 1] ?? "";
    if (simpleEscapes[next] !== undefined) {
      value += simpleEscapes[next];
      index += 2;
    } else if (/[xX]/.test(next)) {
      const hex = /^[0-9A-Fa-f]{1,2}/.exec(text.slice(index + 2, index + 4))?.[0];
      if (!hex) protoInvalid(line, "\\x is not followed by a hexadecimal digit");
      value += String.fromCharCode(parseInt(hex, 16));
      index += 2 + hex.length;
    } else if (/[0-7]/.test(next)) {
      const octal = /^[0-7]{1,3}/.exec(text.slice(index + 1, index + 4))![0];
      value += String.fromCharCode(parseInt(octal, 8) & 0xff);
      index += 1 + octal.length;
    } else if (next === "u" || next === "U") {
      const digits = next === "u" ? 4 : 8;
      const hex = text.slice(index + 2, index + 2 + digits);
      if (!new RegExp(`^[0-9A-Fa-f]{${digits}}$`).test(hex) || parseInt(hex, 16) > 0x10ffff) protoInvalid(line, `\\${next} is not followed by ${digits} hexadecimal digits of a code point`);
      value += String.fromCodePoint(parseInt(hex, 16));
      index += 2 + digits;
    } else protoInvalid(line, `\\${next} is not an escape of the protobuf language`);
  }
}

/** The text's tokens; a 42201 naming the line of anything that is not one. */
export function protoTokens(text: string): ProtoToken[] {
  const tokens: ProtoToken[] = [];
  let line = 1;
  let index = 0;
  while (index < text.length) {
    const char = text[index]!;
    if (char === "\n") {
      line += 1;
      index += 1;
    } else if (/\s/.test(char)) index += 1;
    else if (char === "/" && text[index + 1] === "/") {
      while (index < text.length && text[index] !== "\n") index += 1;
    } else if (char === "/" && text[index + 1] === "*") {
      const end = text.indexOf("*/", index + 2);
      if (end < 0) protoInvalid(line, "a /* comment is not closed");
      for (let at = index; at < end; at += 1) if (text[at] === "\n") line += 1;
      index = end + 2;
    } else if (identifierStart.test(char) || (char === "." && identifierStart.test(text[index + 1] ?? ""))) {
      let end = index + 1;
      while (end < text.length && identifierPart.test(text[end]!)) end += 1;
      tokens.push({ kind: "identifier", text: text.slice(index, end), line });
      index = end;
    } else if (/[0-9]/.test(char) || (char === "." && /[0-9]/.test(text[index + 1] ?? ""))) {
      let end = index + 1;
      while (end < text.length && (numberPart.test(text[end]!) || (/[+-]/.test(text[end]!) && /[eE]/.test(text[end - 1]!) && !/^0[xX]/.test(text.slice(index, end))))) end += 1;
      tokens.push({ kind: "number", text: text.slice(index, end), line });
      index = end;
    } else if (char === '"' || char === "'") {
      const { value, end } = readString(text, index, line);
      tokens.push({ kind: "string", text: value, line });
      index = end;
    } else if (symbols.has(char)) {
      tokens.push({ kind: "symbol", text: char, line });
      index += 1;
    } else protoInvalid(line, `unexpected character ${JSON.stringify(char)}`);
  }
  return tokens;
}

/** A cursor over the tokens with the checks the parser repeats. */
export class TokenCursor {
  readonly #tokens: ProtoToken[];
  #at = 0;

  constructor(tokens: ProtoToken[]) {
    this.#tokens = tokens;
  }

  get done(): boolean {
    return this.#at >= this.#tokens.length;
  }

  /** The line of the next token (or the last one's at the end). */
  get line(): number {
    return (this.#tokens[this.#at] ?? this.#tokens.at(-1))?.line ?? 1;
  }

  peek(offset = 0): ProtoToken | undefined {
    return this.#tokens[this.#at + offset];
  }

  next(what: string): ProtoToken {
    const token = this.#tokens[this.#at];
    if (!token) protoInvalid(this.line, `the text ends where ${what} was expected`);
    this.#at += 1;
    return token;
  }

  /** Consumes the symbol or identifier `text` when it is next. */
  accept(text: string): boolean {
    const token = this.#tokens[this.#at];
    if (token && token.kind !== "string" && token.text === text) {
      this.#at += 1;
      return true;
    }
    return false;
  }

  expect(text: string): void {
    const token = this.next(`"${text}"`);
    if (token.kind === "string" || token.text !== text) protoInvalid(token.line, `expected "${text}", found ${describe(token)}`);
  }

  identifier(what: string): string {
    const token = this.next(what);
    if (token.kind !== "identifier") protoInvalid(token.line, `expected ${what}, found ${describe(token)}`);
    return token.text;
  }

  /** A plain name: an identifier without dots. */
  name(what: string): string {
    const line = this.line;
    const name = this.identifier(what);
    if (name.includes(".")) protoInvalid(line, `${what} ${name} has a dot`);
    return name;
  }

  /** One string literal, or adjacent ones joined (as protoc joins them). */
  string(what: string): string {
    const token = this.next(what);
    if (token.kind !== "string") protoInvalid(token.line, `expected ${what} (a string), found ${describe(token)}`);
    let value = token.text;
    while (this.peek()?.kind === "string") value += this.next(what).text;
    return value;
  }
}

export function describe(token: ProtoToken): string {
  return token.kind === "string" ? `the string ${JSON.stringify(token.text)}` : `"${token.text}"`;
}
