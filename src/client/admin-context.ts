import type { ClientLog } from "./logger.ts";
import type { MetadataCache } from "./metadata.ts";
import type { RetryPolicy } from "./retry.ts";
import type { Transport } from "./transport.ts";

/** What each part of `admin()` calls the server with (admin.ts, subscriptions-admin.ts). */
export interface AdminContext {
  transport: Transport;
  metadata: MetadataCache;
  policy: RetryPolicy;
  log: ClientLog;
}
