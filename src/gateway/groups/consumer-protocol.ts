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
 * throw MalformedInput (the codec's primitives, ../protocol/primitives.ts).
 */
import type { Assignment } from "../../client/types.ts";
import { ByteReader, ByteWriter, MalformedInput } from "../protocol/primitives.ts";

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

/** Decodes a Subscription; throws MalformedInput on bytes that do not hold one. */
export function decodeSubscription(bytes: Uint8Array): Subscription {
  const reader = new ByteReader(bytes);
  const version = reader.int16();
  if (version < 0) throw new MalformedInput(`subscription version ${version}`);
  const topics = readArray(reader, () => requiredString(reader));
  const subscription: Subscription = { version, topics, userData: null, ownedPartitions: [], generationId: -1, rackId: null };
  if (reader.remaining === 0) return subscription;
  subscription.userData = copyOf(reader.bytes(false));
  if (version >= 1 && reader.remaining > 0) subscription.ownedPartitions = readTopicPartitions(reader);
  if (version >= 2 && reader.remaining > 0) subscription.generationId = reader.int32();
  if (version >= 3 && reader.remaining > 0) subscription.rackId = reader.string(false);
  return subscription;
}

/** Encodes a Subscription as version `version` (0–3): the fields that version has. */
export function encodeSubscription(subscription: Pick<Subscription, "topics"> & Partial<Subscription>, version = 0): Uint8Array {
  const writer = new ByteWriter();
  writer.int16(version);
  writer.int32(subscription.topics.length);
  for (const topic of subscription.topics) writer.string(topic, false);
  writer.bytes(subscription.userData ?? new Uint8Array(0), false);
  if (version >= 1) writeTopicPartitions(writer, subscription.ownedPartitions ?? []);
  if (version >= 2) writer.int32(subscription.generationId ?? -1);
  if (version >= 3) writer.string(subscription.rackId ?? null, false);
  return copyOf(writer.finish())!;
}

/** Encodes an Assignment (version 0: every version has this layout), with empty user data as kafkajs writes it. */
export function encodeAssignment(assignment: Assignment, version = 0): Uint8Array {
  const writer = new ByteWriter();
  writer.int16(version);
  writeTopicPartitions(writer, assignment);
  writer.bytes(new Uint8Array(0), false);
  return copyOf(writer.finish())!;
}

export function decodeAssignment(bytes: Uint8Array): { version: number; assignment: Assignment; userData: Uint8Array | null } {
  const reader = new ByteReader(bytes);
  const version = reader.int16();
  const assignment = readTopicPartitions(reader);
  return { version, assignment, userData: reader.remaining === 0 ? null : copyOf(reader.bytes(false)) };
}

function readTopicPartitions(reader: ByteReader): Assignment {
  const entries = readArray(reader, () => ({ topic: requiredString(reader), partitions: readArray(reader, () => reader.int32(), 4) }));
  if (entries.some(({ partitions }) => partitions.some((partition) => partition < 0))) throw new MalformedInput("a negative partition number");
  return entries;
}

function writeTopicPartitions(writer: ByteWriter, assignment: Assignment): void {
  writer.int32(assignment.length);
  for (const { topic, partitions } of assignment) {
    writer.string(topic, false);
    writer.int32(partitions.length);
    for (const partition of partitions) writer.int32(partition);
  }
}

/** An int32 count of items of at least `itemBytesMin` bytes each, checked against what is left before allocating. */
function readArray<T>(reader: ByteReader, item: () => T, itemBytesMin = 2): T[] {
  const count = reader.int32();
  if (count < 0 || count * itemBytesMin > reader.remaining) throw new MalformedInput(`an array of ${count} items in ${reader.remaining} bytes`);
  return Array.from({ length: count }, item);
}

function requiredString(reader: ByteReader): string {
  const value = reader.string(false);
  if (value === null) throw new MalformedInput("a null string");
  return value;
}

/** A copy of its own (a reader's bytes and a writer's answer are views into larger buffers). */
function copyOf(bytes: Uint8Array | null): Uint8Array | null {
  return bytes === null ? null : new Uint8Array(bytes);
}
