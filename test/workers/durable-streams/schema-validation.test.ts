/**
 * A stream's topic with schema id validation (docs/schema-registry.md, "Records checked before
 * they are written"; docs/durable-streams.md): an append is checked as a produce is — a value
 * in Confluent's wire format naming a schema of the subject is written, anything else is 400
 * INVALID_RECORD with nothing written.
 */
import { describe, expect, it } from "vitest";
import { streamTopicName } from "../../../src/durable-streams/stream-names.ts";
import { api } from "../support/http.ts";
import { recordSchema, registeredId } from "../registry/support.ts";
import { ds, uniquePath } from "./support/stream-calls.ts";

const binary = { "content-type": "application/octet-stream" };

/** Confluent's wire format: magic byte 0, the schema id (int32 big-endian), the data. */
function wire(id: number, data: string): Uint8Array {
  const bytes = new Uint8Array(5 + data.length);
  new DataView(bytes.buffer).setInt32(1, id);
  bytes.set(new TextEncoder().encode(data), 5);
  return bytes;
}

async function highWatermark(name: string): Promise<number> {
  return (await api("GET", `/v1/topics/${name}`)).body.partitions[0].highWatermark;
}

describe("appends to a stream whose topic validates schema ids", () => {
  it("are written when in the wire format naming a registered schema, else refused 400 INVALID_RECORD with nothing written", async () => {
    const path = uniquePath("validated");
    const name = streamTopicName(path);
    expect((await ds("PUT", path, { headers: binary })).status).toBe(201);
    const altered = await api("PATCH", `/v1/topics/${name}/configs`, { configs: { "confluent.value.schema.validation": "true" } });
    expect(altered.status, altered.text).toBe(200);
    const id = await registeredId(`${name}-value`, recordSchema([{ name: "n", type: "int" }], "StreamValue"));

    expect((await ds("POST", path, { headers: binary, body: wire(id, "\u0002") })).status).toBe(204);
    for (const [body, why] of [
      [new TextEncoder().encode("raw bytes"), /magic byte/],
      [wire(id + 1_000_000, "\u0002"), /not registered|1000/],
    ] as const) {
      const refused = await ds("POST", path, { headers: binary, body });
      expect(refused.status, refused.text).toBe(400);
      const error = JSON.parse(refused.text).error;
      expect(error.code).toBe("INVALID_RECORD");
      expect(error.message).toMatch(why);
    }
    expect(await highWatermark(name)).toBe(1);
  });
});
