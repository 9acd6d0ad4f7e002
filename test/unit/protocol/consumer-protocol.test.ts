/**
 * ConsumerProtocol Subscription and Assignment bytes against kafkajs's own AssignerProtocol
 * (CommonJS internals, reached with createRequire), and golden bytes for the versions kafkajs
 * does not write (v1+ owned partitions, as librdkafka's cooperative-sticky sends them).
 */
import { createRequire } from "node:module";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MalformedConsumerProtocol as MalformedInput } from "../../../src/protocol/consumer-protocol.ts";
import {
  decodeAssignment,
  decodeSubscription,
  encodeAssignment,
  encodeSubscription,
} from "../../../src/protocol/consumer-protocol.ts";

const require = createRequire(import.meta.url);
const { MemberMetadata, MemberAssignment } = require("kafkajs/src/consumer/assignerProtocol") as {
  MemberMetadata: {
    encode(input: { version: number; topics: string[]; userData?: Buffer }): Buffer;
    decode(buffer: Buffer): { version: number; topics: string[]; userData: Buffer | null };
  };
  MemberAssignment: {
    encode(input: { version: number; assignment: Record<string, number[]>; userData?: Buffer }): Buffer;
    decode(buffer: Buffer): { version: number; assignment: Record<string, number[]>; userData: Buffer | null } | null;
  };
};

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString("hex");

describe("Subscription", () => {
  it("decodes what kafkajs's MemberMetadata encodes, and encodes v0 byte for byte as kafkajs does", () => {
    const kafkajs = MemberMetadata.encode({ version: 0, topics: ["orders", "audit"], userData: Buffer.from([1, 2]) });
    expect(decodeSubscription(kafkajs)).toEqual({
      version: 0,
      topics: ["orders", "audit"],
      userData: new Uint8Array([1, 2]),
      ownedPartitions: [],
      generationId: -1,
      rackId: null,
    });
    expect(hex(encodeSubscription({ topics: ["orders", "audit"] }))).toBe(hex(MemberMetadata.encode({ version: 0, topics: ["orders", "audit"] })));
  });

  it("reads v3 golden bytes: owned partitions, generation and rack", () => {
    // version 3, topics ["t"], userData null, owned [t: 2, 0], generationId 7, rackId "r1"
    const golden = "0003" + "00000001" + "000174" + "ffffffff" + "00000001" + "000174" + "00000002" + "00000002" + "00000000" + "00000007" + "00027231";
    expect(decodeSubscription(Buffer.from(golden, "hex"))).toEqual({
      version: 3,
      topics: ["t"],
      userData: null,
      ownedPartitions: [{ topic: "t", partitions: [2, 0] }],
      generationId: 7,
      rackId: "r1",
    });
    const encoded = encodeSubscription({ topics: ["t"], ownedPartitions: [{ topic: "t", partitions: [0, 2] }], generationId: 7, rackId: "r1" }, 3);
    expect(decodeSubscription(encoded)).toMatchObject({ ownedPartitions: [{ topic: "t", partitions: [0, 2] }], generationId: 7, rackId: "r1" });
  });

  it("reads a newer version as the newest it knows, and a shorter buffer with defaults", () => {
    const v1 = encodeSubscription({ topics: ["t"], ownedPartitions: [{ topic: "t", partitions: [1] }] }, 1);
    const v9 = Uint8Array.from([...v1, 0, 0, 0, 3, 0xff, 0xff, 0xee]);
    v9[1] = 9;
    expect(decodeSubscription(v9)).toMatchObject({ version: 9, ownedPartitions: [{ topic: "t", partitions: [1] }], generationId: 3, rackId: null });
    const topicsOnly = Uint8Array.from([0, 1, 0, 0, 0, 1, 0, 1, 0x74]);
    expect(decodeSubscription(topicsOnly)).toMatchObject({ version: 1, topics: ["t"], ownedPartitions: [], generationId: -1 });
  });

  it("refuses truncated, negative or oversized counts with MalformedInput, never anything else", () => {
    for (const bad of ["", "00", "0000ffffffff", "00007fffffff", "0000000000010005", "ffff00000000"]) {
      expect(() => decodeSubscription(Buffer.from(bad, "hex")), bad).toThrow(MalformedInput);
    }
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        try {
          decodeSubscription(bytes);
        } catch (error) {
          expect(error).toBeInstanceOf(MalformedInput);
        }
      }),
    );
  });
});

describe("Assignment", () => {
  it("encodes byte for byte as kafkajs's MemberAssignment, which decodes it back", () => {
    const assignment = [
      { topic: "audit", partitions: [1] },
      { topic: "orders", partitions: [0, 2, 5] },
    ];
    const ours = encodeAssignment(assignment);
    expect(hex(ours)).toBe(hex(MemberAssignment.encode({ version: 0, assignment: { audit: [1], orders: [0, 2, 5] } })));
    expect(MemberAssignment.decode(Buffer.from(ours))).toEqual({ version: 0, assignment: { audit: [1], orders: [0, 2, 5] }, userData: Buffer.alloc(0) });
    expect(hex(encodeAssignment([]))).toBe(hex(MemberAssignment.encode({ version: 0, assignment: {} })));
  });

  it("round-trips any assignment", () => {
    const assignments = fc.uniqueArray(
      fc.record({ topic: fc.string({ minLength: 1, maxLength: 20 }), partitions: fc.uniqueArray(fc.nat({ max: 10_000 }), { minLength: 1, maxLength: 20 }) }),
      { selector: (entry) => entry.topic, maxLength: 5 },
    );
    fc.assert(
      fc.property(assignments, (assignment) => {
        const normalized = assignment
          .map(({ topic, partitions }) => ({ topic, partitions: [...partitions].sort((a, b) => a - b) }))
          .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
        expect(decodeAssignment(encodeAssignment(normalized)).assignment).toEqual(normalized);
      }),
    );
  });
});
