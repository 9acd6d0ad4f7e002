/**
 * Push subscriptions (docs/api.md, Subscriptions): `admin.subscriptions.create(...)`, `list`,
 * `describe`, `pause`, `resume`, `update` and `delete`. As the other admin calls, reads are
 * retried on retriable errors and changes are not.
 */
import type { z } from "zod";
import type {
  createSubscriptionSchema,
  patchSubscriptionSchema,
  SubscriptionAnswer,
  SubscriptionDescription,
} from "../protocol/subscription-schemas.ts";
import type { AdminContext } from "./admin-context.ts";
import { withRetries } from "./retry.ts";
import { path } from "./transport.ts";

/** `{name, topic, mode, target, from?, batchSize?, maxWaitMs?, maxInFlight?, retryDelayMs?, deliveryLimit?, deadLetterTopic?, isolation?}` (isolation: read_committed by default). */
export type CreateSubscriptionRequest = z.input<typeof createSubscriptionSchema>;
/** `{paused?, target?, batchSize?, maxWaitMs?, maxInFlight?, retryDelayMs?, deliveryLimit?, deadLetterTopic?}`. */
export type UpdateSubscriptionRequest = z.input<typeof patchSubscriptionSchema>;
export type Subscription = SubscriptionAnswer;
export type { SubscriptionDescription };

export class SubscriptionsAdmin {
  readonly #context: AdminContext;

  constructor(context: AdminContext) {
    this.#context = context;
  }

  #read<T>(requestPath: string): Promise<T> {
    return withRetries(() => this.#context.transport.json<T>({ method: "GET", path: requestPath }), { policy: this.#context.policy, log: this.#context.log });
  }

  /** Creates a subscription (SUBSCRIPTION_ALREADY_EXISTS if the name is taken); a webhook's secret is answered as "<redacted>". */
  async create(request: CreateSubscriptionRequest): Promise<Subscription> {
    return this.#context.transport.json<Subscription>({ method: "POST", path: path("subscriptions"), json: request });
  }

  /** Every subscription of the topics the token may describe, sorted by name. */
  async list(): Promise<Subscription[]> {
    return (await this.#read<{ subscriptions: Subscription[] }>(path("subscriptions"))).subscriptions;
  }

  /** Settings, counters (`delivered`, `retried`, `deadLettered`), `lag`, the last error and each partition's position. */
  async describe(name: string): Promise<SubscriptionDescription> {
    return this.#read<SubscriptionDescription>(path("subscriptions", name));
  }

  async update(name: string, request: UpdateSubscriptionRequest): Promise<Subscription> {
    return this.#context.transport.json<Subscription>({ method: "PATCH", path: path("subscriptions", name), json: request });
  }

  /** No delivery starts while paused; records keep accumulating as lag. */
  pause(name: string): Promise<Subscription> {
    return this.update(name, { paused: true });
  }

  resume(name: string): Promise<Subscription> {
    return this.update(name, { paused: false });
  }

  /** No delivery starts once this resolves. */
  async delete(name: string): Promise<void> {
    await this.#context.transport.empty({ method: "DELETE", path: path("subscriptions", name) });
  }
}
