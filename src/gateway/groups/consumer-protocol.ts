/**
 * Kafka's ConsumerProtocol: the bytes a classic consumer puts in JoinGroup's protocol metadata
 * (Subscription) and reads from SyncGroup's answer (Assignment). Not the wire protocol's own
 * encoding but a small fixed one (never flexible), big-endian:
 *
 *   Subscription                              Assignment
 *   ┌──────────────────────────────────┐      ┌──────────────────────────────────┐
 *   │ version        int16             │      │ version        int16             │
 *   │ topics         [string]          │      │ assigned       [topic string,    │
 *   │ userData       nullable bytes    │      │                 partitions [int32]]│
 *   │ v1+ owned      [topic string,    │      │ userData       nullable bytes    │
 *   │                 partitions [int32]]│    └──────────────────────────────────┘
 *   │ v2+ generationId int32           │      (versions 0–3 share this layout)
 *   │ v3+ rackId     nullable string   │
 *   └──────────────────────────────────┘
 *   string = int16 length + UTF-8 (-1 null); bytes = int32 length + bytes (-1 null);
 *   [x] = int32 count + x…
 *
 * Decoding is lenient past the topics, as Kafka's own: fields a shorter buffer lacks keep
 * their defaults, and a version above 3 is read as 3 (later versions only append fields).
 * Bounded: counts are checked against the bytes left before anything is allocated.
 */
import type { Assignment } from "../../group/assignment.ts";
import { normalizeAssignment } from "../../group/assignment.ts";

export interface Subscription {
  version: number;
  topics: string[];
  userData: Uint8Array | null;
  /** What the member holds as it joins (v1+): a cooperative member keeps consuming these. */
  ownedPartitions: Assignment;
  /** The generation the member last had (v2+); -1 when unknown. */
  generationId: number;
  rackId: string | null;
}

export class ConsumerProtocolError extends Error {}

/** Decodes a Subscription; throws ConsumerProtocolError on bytes that do not hold one. */
export function decodeSubscription(bytes: Uint8Array): Subscription {
  const reader = new Reader(bytes);
  const version = reader.int16();
  if (version < 0) throw new ConsumerProtocolError(`subscription version ${version}`);
  const topics = reader.array(() => reader.string());
  const subscription: Subscription = { version, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null };
  if (reader.done()) return subscription;
  subscription.userData = reader.nullableBytes();
  if (version >= 1 && !reader.done()) subscription.ownedPartitions = readTopicPartitions(reader);
  if (version >= 2 && !reader.done()) subscription.generationId = reader.int32();
  if (version >= 3 && !reader.done()) subscription.rackId = reader.nullableString();
  return subscription;
}

/** Encodes a Subscription as version `version` (0–3): the fields that version has. */
export function encodeSubscription(subscription: Pick<Subscription, "topics"> & Partial<Subscription>, version = 0): Uint8Array {
  const writer = new Writer();
  writer.int16(version);
  writer.int32(subscription.topics.length);
  for (const topic of subscription.topics) writer.string(topic);
  writer.bytes(subscription.userData ?? new Uint8Array(0));
  if (version >= 1) writeTopicPartitions(writer, subscription.ownedPartitions ?? []);
  if (version >= 2) writer.int32(subscription.generationId ?? -1);
  if (version >= 3) writer.nullableString(subscription.rackId ?? null);
  return writer.finish();
}

/** Encodes an Assignment (version 0: every version has this layout), with empty user data as kafkajs writes it. */
export function encodeAssignment(assignment: Assignment, version = 0): Uint8Array {
  const writer = new Writer();
  writer.int16(version);
  writeTopicPartitions(writer, assignment);
  writer.bytes(new Uint8Array(0));
  return writer.finish();
}

export function decodeAssignment(bytes: Uint8Array): { version: number; assignment: Assignment; userData: Uint8Array | null } {
  const reader = new Reader(bytes);
  const version = reader.int16();
  const assignment = readTopicPartitions(reader);
  return { version, assignment, userData: reader.done() ? null : reader.nullableBytes() };
}

function readTopicPartitions(reader: Reader): Assignment {
  const entries = reader.array(() => ({ topic: reader.string(), partitions: reader.array(() => reader.int32(), 4) }));
  if (entries.some(({ partitions }) => partitions.some((partition) => partition < 0))) {
    throw new ConsumerProtocolError("a negative partition number");
  }
  return normalizeAssignment(entries);
}

function writeTopicPartitions(writer: Writer, assignment: Assignment): void {
  writer.int32(assignment.length);
  for (const { topic, partitions } of assignment) {
    writer.string(topic);
    writer.int32(partitions.length);
    for (const partition of partitions) writer.int32(partition);
  }
}

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

class Reader {
  readonly #view: DataView;
  readonly #bytes: Uint8Array;
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  done(): boolean {
    return this.#at >= this.#bytes.length;
  }

  #need(count: number): number {
    if (count < 0 || this.#at + count > this.#bytes.length) throw new ConsumerProtocolError("truncated consumer protocol bytes");
    const at = this.#at;
    this.#at += count;
    return at;
  }

  int16(): number {
    return this.#view.getInt16(this.#need(2));
  }

  int32(): number {
    return this.#view.getInt32(this.#need(4));
  }

  /** An int32 count of items of at least `itemBytesMin` bytes each, checked against what is left. */
  array<T>(item: () => T, itemBytesMin = 2): T[] {
    const count = this.int32();
    if (count < 0 || count * itemBytesMin > this.#bytes.length - this.#at) throw new ConsumerProtocolError(`array of ${count} items`);
    return Array.from({ length: count }, item);
  }

  string(): string {
    const value = this.nullableString();
    if (value === null) throw new ConsumerProtocolError("a null string");
    return value;
  }

  nullableString(): string | null {
    const length = this.int16();
    if (length === -1) return null;
    const at = this.#need(length);
    try {
      return fromUtf8.decode(this.#bytes.subarray(at, at + length));
    } catch {
      throw new ConsumerProtocolError("a string that is not UTF-8");
    }
  }

  nullableBytes(): Uint8Array | null {
    const length = this.int32();
    if (length === -1) return null;
    const at = this.#need(length);
    return new Uint8Array(this.#bytes.subarray(at, at + length));
  }
}

class Writer {
  readonly #chunks: Uint8Array[] = [];
  #length = 0;

  #push(chunk: Uint8Array): void {
    this.#chunks.push(chunk);
    this.#length += chunk.length;
  }

  int16(value: number): void {
    const chunk = new Uint8Array(2);
    new DataView(chunk.buffer).setInt16(0, value);
    this.#push(chunk);
  }

  int32(value: number): void {
    const chunk = new Uint8Array(4);
    new DataView(chunk.buffer).setInt32(0, value);
    this.#push(chunk);
  }

  string(value: string): void {
    const encoded = utf8.encode(value);
    this.int16(encoded.length);
    this.#push(encoded);
  }

  nullableString(value: string | null): void {
    if (value === null) this.int16(-1);
    else this.string(value);
  }

  bytes(value: Uint8Array): void {
    this.int32(value.length);
    this.#push(value);
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.#length);
    let at = 0;
    for (const chunk of this.#chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}
