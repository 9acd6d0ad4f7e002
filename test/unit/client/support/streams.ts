import type { ConsumedMessage } from "../../../../src/client/index.ts";

/** The first `count` records of a stream (then it is ended), `onRecord` run on each while the stream waits. */
export async function take(
  stream: AsyncIterable<ConsumedMessage>,
  count: number,
  onRecord?: (record: ConsumedMessage, index: number) => void | Promise<void>,
): Promise<ConsumedMessage[]> {
  const taken: ConsumedMessage[] = [];
  for await (const record of stream) {
    taken.push(record);
    await onRecord?.(record, taken.length - 1);
    if (taken.length === count) break;
  }
  return taken;
}
