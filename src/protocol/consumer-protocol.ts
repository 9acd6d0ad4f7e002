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
 * Bounded: counts are checked against the bytes left before anything is allocated. Bad bytes
 * throw MalformedConsumerProtocol.
 *
 * Shared by the gateway (which used to encode and decode these bytes itself) and the group
 * core, which reads classic members' subscriptions and assignments when a group moves between
 * Kafka's classic protocol and server-side assignment (src/group/group-conversion.ts).
 */

/** `[{topic, partitions: [...]}]`, as the client's and the group core's Assignment. */
export type TopicPartitions = { topic: string; partitions: number[] }[];

export interface Subscription {
  version: number;
  topics: string[];
  userData: Uint8Array | null;
  /** What the member holds as it joins (v1+): a cooperative member keeps consuming these. */
  ownedPartitions: TopicPartitions;
  /** The generation the member last had (v2+); -1 when unknown. */
  generationId: number;
  rackId: string | null;
}

/** Bytes that do not hold what they should. */
export class MalformedConsumerProtocol extends Error {
  override readonly name = "MalformedConsumerProtocol";
}

/** Decodes a Subscription; throws MalformedConsumerProtocol on bytes that do not hold one. */
export function decodeSubscription(bytes: Uint8Array): Subscription {
  const reader = new Reader(bytes);
  const version = reader.int16();
  if (version < 0) throw new MalformedConsumerProtocol(`subscription version ${version}`);
  const topics = reader.array(() => reader.requiredString());
  const subscription: Subscription = { version, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null };
  if (reader.remaining === 0) return subscription;
  subscription.userData = reader.bytes();
  if (version >= 1 && reader.remaining > 0) subscription.ownedPartitions = reader.topicPartitions();
  if (version >= 2 && reader.remaining > 0) subscription.generationId = reader.int32();
  if (version >= 3 && reader.remaining > 0) subscription.rackId = reader.string();
  return subscription;
}

/** Encodes a Subscription as version `version` (0–3): the fields that version has. */
export function encodeSubscription(subscription: Pick<Subscription, "topics"> & Partial<Subscription>, version = 0): Uint8Array {
  const writer = new Writer();
  writer.int16(version);
  writer.int32(subscription.topics.length);
  for (const topic of subscription.topics) writer.string(topic);
  writer.bytes(subscription.userData ?? new Uint8Array(0));
  if (version >= 1) writer.topicPartitions(subscription.ownedPartitions ?? []);
  if (version >= 2) writer.int32(subscription.generationId ?? -1);
  if (version >= 3) writer.string(subscription.rackId ?? null);
  return writer.finish();
}

/** Encodes an Assignment (version 0: every version has this layout), with empty user data as kafkajs writes it unless given some. */
export function encodeAssignment(assignment: TopicPartitions, version = 0, userData: Uint8Array | null = new Uint8Array(0)): Uint8Array {
  const writer = new Writer();
  writer.int16(version);
  writer.topicPartitions(assignment);
  writer.bytes(userData);
  return writer.finish();
}

/** Decodes an Assignment; throws MalformedConsumerProtocol on bytes that do not hold one. */
export function decodeAssignment(bytes: Uint8Array): { version: number; assignment: TopicPartitions; userData: Uint8Array | null } {
  const reader = new Reader(bytes);
  const version = reader.int16();
  const assignment = reader.topicPartitions();
  return { version, assignment, userData: reader.remaining === 0 ? null : reader.bytes() };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** A big-endian reader of the few types above; anything short or impossible throws MalformedConsumerProtocol. */
class Reader {
  readonly #bytes: Uint8Array;
  readonly #view: DataView;
  #at = 0;

  constructor(bytes: Uint8Array) {
    this.#bytes = bytes;
    this.#view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  get remaining(): number {
    return this.#bytes.length - this.#at;
  }

  #take(count: number): number {
    if (count < 0 || count > this.remaining) throw new MalformedConsumerProtocol(`needs ${count} bytes at ${this.#at}, has ${this.remaining}`);
    const at = this.#at;
    this.#at += count;
    return at;
  }

  int16(): number {
    return this.#view.getInt16(this.#take(2));
  }

  int32(): number {
    return this.#view.getInt32(this.#take(4));
  }

  string(): string | null {
    const length = this.int16();
    if (length === -1) return null;
    const at = this.#take(length);
    try {
      return decoder.decode(this.#bytes.subarray(at, at + length));
    } catch {
      throw new MalformedConsumerProtocol(`a string that is not UTF-8 at ${at}`);
    }
  }

  requiredString(): string {
    const value = this.string();
    if (value === null) throw new MalformedConsumerProtocol("a null string");
    return value;
  }

  /** A copy of its own (the input may be a view into a larger buffer). */
  bytes(): Uint8Array | null {
    const length = this.int32();
    if (length === -1) return null;
    const at = this.#take(length);
    return new Uint8Array(this.#bytes.subarray(at, at + length));
  }

  /** An int32 count of items of at least `itemBytesMin` bytes each, checked against what is left before allocating. */
  array<T>(item: () => T, itemBytesMin = 2): T[] {
    const count = this.int32();
    if (count < 0 || count * itemBytesMin > this.remaining) throw new MalformedConsumerProtocol(`an array of ${count} items in ${this.remaining} bytes`);
    return Array.from({ length: count }, item);
  }

  topicPartitions(): TopicPartitions {
    const entries = this.array(() => ({ topic: this.requiredString(), partitions: this.array(() => this.int32(), 4) }));
    if (entries.some(({ partitions }) => partitions.some((partition) => partition < 0))) throw new MalformedConsumerProtocol("a negative partition number");
    return entries;
  }
}

class Writer {
  readonly #chunks: number[] = [];

  int16(value: number): void {
    this.#chunks.push((value >> 8) & 0xff, value & 0xff);
  }

  int32(value: number): void {
    this.#chunks.push((value >>> 24) & 0xff, (value >>> 16) & 0xff, (value >>> 8) & 0xff, value & 0xff);
  }

  string(value: string | null): void {
    if (value === null) return this.int16(-1);
    const bytes = encoder.encode(value);
    this.int16(bytes.length);
    for (const byte of bytes) this.#chunks.push(byte);
  }

  bytes(value: Uint8Array | null): void {
    if (value === null) return this.int32(-1);
    this.int32(value.length);
    for (const byte of value) this.#chunks.push(byte);
  }

  topicPartitions(entries: TopicPartitions): void {
    this.int32(entries.length);
    for (const { topic, partitions } of entries) {
      this.string(topic);
      this.int32(partitions.length);
      for (const partition of partitions) this.int32(partition);
    }
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.#chunks);
  }
}
