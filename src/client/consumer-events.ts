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

/** A consumer's listeners by event; `Events` maps each event's name to its payload (ConsumerEvents, ShareConsumerEvents). */
export class EventHub<Events extends object = ConsumerEvents> {
  readonly #listeners = new Map<keyof Events, Set<Listener>>();

  on<Event extends keyof Events>(event: Event, listener: (payload: Events[Event]) => void): () => void {
    const set = this.#listeners.get(event) ?? new Set<Listener>();
    set.add(listener as Listener);
    this.#listeners.set(event, set);
    return () => set.delete(listener as Listener);
  }

  emit<Event extends keyof Events>(event: Event, payload: Events[Event]): void {
    for (const listener of this.#listeners.get(event) ?? []) {
      try {
        (listener as (payload: Events[Event]) => void)(payload);
      } catch (error) {
        console.error(`a consumer ${String(event)} listener threw`, error);
      }
    }
  }
}
