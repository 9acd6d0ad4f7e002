import { expect } from "vitest";
import { TributaryError } from "../../../src/errors.ts";

/** The code of the TributaryError a call is refused with (the data plane's calls throw them). */
export async function rejection(call: Promise<unknown>): Promise<string> {
  const error = await call.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(TributaryError);
  return (error as TributaryError).code;
}
