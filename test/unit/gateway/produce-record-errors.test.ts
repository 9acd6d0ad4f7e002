import { describe, expect, it } from "vitest";
import { TributaryError } from "../../../src/errors.ts";
import { recordErrorsOf } from "../../../src/gateway/handlers/produce.ts";

describe("Produce's record errors", () => {
  it("carry the record an INVALID_RECORD names (schema id validation), with its message", () => {
    const refused = new TributaryError("INVALID_RECORD", "batch 0, record 3: value starts with byte 114, not Confluent's wire format's magic byte 0", { recordIndex: 3 });
    expect(recordErrorsOf(refused)).toEqual([{ batchIndex: 3, batchIndexErrorMessage: refused.message }]);
  });

  it("are none for an error that names no record", () => {
    expect(recordErrorsOf(new TributaryError("INVALID_RECORD", "a control batch is written by the transaction coordinator"))).toEqual([]);
    expect(recordErrorsOf(new TributaryError("MESSAGE_TOO_LARGE", "too large", { recordIndex: 1 }))).toEqual([]);
    expect(recordErrorsOf(new Error("unreachable"))).toEqual([]);
  });
});
