/**
 * What Cloudflare bills, counted where it happens — for the benchmark's monthly bill
 * (bench/bill.ts, bench/README.md "The bill"), only when TRIBUTARY_FAULTS=1 and
 * TRIBUTARY_DEBUG_STATS=1 (a topic's description then carries it as `debugBilling`). Never a
 * production API.
 *
 * The counts are per isolate. Under `wrangler dev` the Worker and every Durable Object of it
 * run in one isolate, so there they are the whole deployment's: every RPC call on a stub made
 * by `src/contracts/stubs.ts` (the one place stubs come from, for the data plane, the router
 * and the objects alike) is one billed object request, and the time each object has at least
 * one such call in flight is the wall-clock time it cannot hibernate because of a request (the
 * bill's duration model). It sits beside the stubs, below the objects and the data plane, which
 * both count here. Alarms, incoming WebSocket messages, SQLite rows (`CountedSql`) and R2
 * operations are added by the code that does them.
 *
 * A call cancelled together with its request (a client that goes away during a long poll)
 * never reports its end, so its object counts as active until the isolate ends: bench/bill.ts
 * gives each measured case a server of its own.
 */

export interface BillingCounts {
  /** RPC calls (and `fetch`es) on Durable Object stubs: billed requests. */
  objectRequests: number;
  /** Alarm invocations (billed as requests). */
  alarms: number;
  /** Messages received on WebSockets an object holds (billed 20 to a request). */
  websocketMessages: number;
  /** Σ over objects of the wall-clock ms during which the object had a request in flight. */
  objectActiveMs: number;
  sqliteRowsRead: number;
  sqliteRowsWritten: number;
  /** R2 put, list (and multipart) operations. */
  r2ClassA: number;
  /** R2 get and head operations. */
  r2ClassB: number;
  /** R2 deletes (free). */
  r2Deletes: number;
}

const meter: BillingCounts = {
  objectRequests: 0,
  alarms: 0,
  websocketMessages: 0,
  objectActiveMs: 0,
  sqliteRowsRead: 0,
  sqliteRowsWritten: 0,
  r2ClassA: 0,
  r2ClassB: 0,
  r2Deletes: 0,
};

/** Per object (by id): calls in flight and since when it had one. Bounded by the objects alive in this isolate. */
const inFlight = new Map<string, { calls: number; sinceMs: number }>();

export function billingMeterEnabled(env: { TRIBUTARY_FAULTS?: string; TRIBUTARY_DEBUG_STATS?: string }): boolean {
  return env.TRIBUTARY_FAULTS === "1" && env.TRIBUTARY_DEBUG_STATS === "1";
}

/** The counts now, with the time of calls still in flight counted up to now. */
export function billingSnapshot(nowMs = Date.now()): BillingCounts & { objectsActiveNow: number } {
  let openMs = 0;
  for (const entry of inFlight.values()) openMs += nowMs - entry.sinceMs;
  return { ...meter, objectActiveMs: meter.objectActiveMs + openMs, objectsActiveNow: inFlight.size };
}

export function countBilled(field: Exclude<keyof BillingCounts, "objectActiveMs">, amount = 1): void {
  meter[field] += amount;
}

function callStarted(objectId: string, nowMs: number): void {
  const entry = inFlight.get(objectId);
  if (entry) entry.calls++;
  else inFlight.set(objectId, { calls: 1, sinceMs: nowMs });
}

function callEnded(objectId: string, nowMs: number): void {
  const entry = inFlight.get(objectId);
  if (!entry) return;
  if (--entry.calls > 0) return;
  inFlight.delete(objectId);
  meter.objectActiveMs += nowMs - entry.sinceMs;
}

/**
 * A stub whose method calls are counted, with the time each is in flight. Properties that are
 * not functions (`id`, `name`) pass through; `then` is left alone so a stub never looks like a
 * promise.
 */
export function meteredStub<T extends object>(env: Env, stub: T & { id: DurableObjectId }): T {
  if (!billingMeterEnabled(env)) return stub;
  const objectId = stub.id.toString();
  return new Proxy(stub, {
    get(target, property) {
      const value = (target as Record<PropertyKey, unknown>)[property];
      if (typeof value !== "function" || typeof property === "symbol" || property === "then") return value;
      return (...args: unknown[]) => {
        meter.objectRequests++;
        callStarted(objectId, Date.now());
        const ended = () => callEnded(objectId, Date.now());
        let result: unknown;
        try {
          result = Reflect.apply(value, target, args);
        } catch (error) {
          ended();
          throw error;
        }
        Promise.resolve(result).then(ended, ended);
        return result;
      };
    },
  });
}

type Bucket = Pick<R2Bucket, "put" | "get" | "head" | "delete" | "list">;

/** A bucket whose operations are counted by class (R2's pricing). */
export function meteredBucket<B extends Bucket>(env: Env, bucket: B): B {
  if (!billingMeterEnabled(env)) return bucket;
  const classes: Record<string, keyof BillingCounts> = { put: "r2ClassA", list: "r2ClassA", get: "r2ClassB", head: "r2ClassB", delete: "r2Deletes" };
  return new Proxy(bucket, {
    get(target, property) {
      const value = (target as Record<PropertyKey, unknown>)[property];
      const field = typeof property === "string" ? classes[property] : undefined;
      if (typeof value !== "function" || field === undefined) return typeof value === "function" ? value.bind(target) : value;
      return (...args: unknown[]) => {
        meter[field]++;
        return Reflect.apply(value, target, args);
      };
    },
  });
}
