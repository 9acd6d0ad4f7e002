import type { Fault } from "../contracts/faults.ts";

/* A replica's injected fault (src/contracts/faults.ts, API.md "Fault injection"), applied around its calls. */

/** What a caller sees from a replica that is down: a failed call, not an error value. */
export class ReplicaUnreachable extends Error {
  override readonly name = "ReplicaUnreachable";
}

export class ReplicaFaults {
  #fault: Fault = "none";
  #slowMs = 0;

  set(fault: Fault, ms: number): void {
    this.#fault = fault;
    this.#slowMs = fault === "slow" ? ms : 0;
  }

  get current(): Fault {
    return this.#fault;
  }

  /** Before answering any call: fail it when down, delay it when slow. */
  async beforeCall(): Promise<void> {
    if (this.#fault === "down") throw new ReplicaUnreachable("replica is down (fault injection)");
    if (this.#fault === "slow" && this.#slowMs > 0) await new Promise((resolve) => setTimeout(resolve, this.#slowMs));
  }

  /** After an append is stored: a crash-after-write fault loses the reply, once. */
  afterWrite(): void {
    if (this.#fault !== "crash-after-write") return;
    this.#fault = "none";
    throw new ReplicaUnreachable("replica crashed after writing (fault injection)");
  }
}
