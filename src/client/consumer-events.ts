/**
 * The consumer's instrumentation events, kafkajs's names: `group.join`, `fetch` (after each
 * poll), `rebalance` (the assignment changed), `crash` (the consumer stopped on an error).
 * A listener's own exception is caught and reported, never breaks the consumer.
 */
import type { Assignment } from "./types.ts";

export interface ConsumerEvents {
  "group.join": { memberId: string; assignment: Assignment };
  fetch: { records: number; assignment: Assignment };
  rebalance: { assignment: Assignment };
  crash: { error: unknown };
}

type Listener = (payload: never) => void;

export class EventHub {
  readonly #listeners = new Map<keyof ConsumerEvents, Set<Listener>>();

  on<Event extends keyof ConsumerEvents>(event: Event, listener: (payload: ConsumerEvents[Event]) => void): () => void {
    const set = this.#listeners.get(event) ?? new Set<Listener>();
    set.add(listener as Listener);
    this.#listeners.set(event, set);
    return () => set.delete(listener as Listener);
  }

  emit<Event extends keyof ConsumerEvents>(event: Event, payload: ConsumerEvents[Event]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        (listener as (payload: ConsumerEvents[Event]) => void)(payload);
      } catch (error) {
        console.error(`a consumer ${event} listener threw`, error);
      }
    }
  }
}
