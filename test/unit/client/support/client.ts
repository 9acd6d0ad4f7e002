import { Tributary, type TributaryConfig } from "../../../../src/client/index.ts";
import { FakeServer } from "./fake-server.ts";

/** A client over a fresh fake server, with quick retries so failure tests stay fast. */
export function fakeClient(config: Partial<TributaryConfig> = {}) {
  const server = new FakeServer();
  const quickBackoff = { initialBackoffMs: 1, maxBackoffMs: 5 };
  const client = new Tributary({ url: "http://tributary.test", fetch: server.fetch, ...config, retry: { ...quickBackoff, ...config.retry } });
  return { server, client };
}

export const utf8 = (text: string) => new TextEncoder().encode(text);
export const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));
export const produceRequests = (server: FakeServer) => server.requestsTo(/\/partitions\/\d+\/records$/, "POST");
