/**
 * The world of the classic group simulation (classic-group.sim.test.ts): Kafka clients that
 * speak the classic protocol to a pure ClassicGroup (src/group/classic-group.ts) under a fake
 * clock. Clients join (with and without KIP-394's member id step, some static), wait on held
 * JoinGroups and SyncGroups, lose answers and send again, heartbeat and rejoin with new user
 * data, commit, leave, crash, restart under their instance id, and start as duplicates of a
 * running static member; the coordinator restarts from its state; time jumps past sessions and
 * rebalance timeouts. A client that leads assigns the partitions round robin and writes, into
 * each member's bytes, the metadata it saw for that member, so the checks can follow every byte.
 *
 * Checked after every step (checks throw; the test prints the seed and the log):
 * - the leader's JoinGroup answer lists each member with exactly the metadata it last sent;
 * - each SyncGroup answer is exactly the bytes the leader sent for that member at that generation;
 * - generations only grow; one leader, and it is a member; one member per instance id;
 * - no partition is held by two clients that are stable in the current generation.
 */
import { TributaryError } from "../../src/errors.ts";
import { ClassicGroup } from "../../src/group/classic-group.ts";
import type { ClassicJoinAnswer, ClassicJoinRequest } from "../../src/group/classic-group.ts";
import { SeededRandom } from "./group-sim-random.ts";

const partitions = 6;
const sessionTimeoutMs = 10_000;
const rebalanceTimeoutMs = 20_000;
const b64 = (text: string) => Buffer.from(text).toString("base64");
const text = (base64: string) => Buffer.from(base64, "base64").toString();

type Phase = "down" | "joining" | "syncing" | "stable";

interface Client {
  name: string;
  instanceId: string | null;
  phase: Phase;
  memberId: string;
  generationId: number;
  /** Bumped at every JoinGroup: the user data changes, so stale bytes show. */
  joins: number;
  metadata: string;
  isLeader: boolean;
  leaderMembers: ClassicJoinAnswer["members"];
  owned: number[];
}

export interface ClassicSimCounts {
  joins: number;
  held: number;
  lostAnswers: number;
  rebalances: number;
  fenced: number;
  expired: number;
  leaves: number;
  crashes: number;
  restarts: number;
  duplicates: number;
  commits: number;
}

export class ClassicGroupSim {
  readonly log: string[] = [];
  readonly counts: ClassicSimCounts = { joins: 0, held: 0, lostAnswers: 0, rebalances: 0, fenced: 0, expired: 0, leaves: 0, crashes: 0, restarts: 0, duplicates: 0, commits: 0 };
  readonly #random: SeededRandom;
  #group: ClassicGroup;
  #nowMs = 1_000_000;
  #ids = 0;
  readonly #clients: Client[] = [];
  /** What each member last sent, by member id: the metadata the leader must see. */
  readonly #sent = new Map<string, string>();
  /** The leader's bytes per generation and member. */
  readonly #assigned = new Map<number, Map<string, string>>();
  #highestGeneration = 0;

  constructor(seed: number) {
    this.#random = new SeededRandom(seed);
    this.#group = new ClassicGroup({ generateId: () => `id${++this.#ids}` });
    for (let index = 0; index < 5; index++) this.#clients.push(this.#newClient(`c${index}`, index < 2 ? `static-${index}` : null));
  }

  run(steps: number): void {
    for (let step = 0; step < steps; step++) {
      this.#step();
      this.#check();
    }
    this.#settle();
  }

  #newClient(name: string, instanceId: string | null): Client {
    return { name, instanceId, phase: "down", memberId: "", generationId: -1, joins: 0, metadata: "", isLeader: false, leaderMembers: [], owned: [] };
  }

  #step(): void {
    const action = this.#random.weighted({ start: 3, poll: 8, resend: 2, heartbeat: 6, commit: 2, leave: 1, crash: 1, duplicate: 1, tick: 4, restart: 1 });
    const running = this.#clients.filter((client) => client.phase !== "down");
    const client = this.#random.pick(this.#clients);
    if (action === "tick") return this.#tick(this.#random.int(0, 12_000));
    if (action === "restart") {
      this.counts.restarts += 1;
      this.#group = new ClassicGroup({ generateId: () => `id${++this.#ids}` }, JSON.parse(JSON.stringify(this.#group.toState())));
      return this.#note("coordinator restarted");
    }
    if (action === "duplicate") return this.#duplicate();
    if (action === "start" && client.phase === "down") return this.#join(client, this.#random.chance(0.5));
    if (running.length === 0) return;
    const member = this.#random.pick(running);
    if (action === "poll" || action === "resend") return this.#advance(member, action === "resend");
    if (action === "heartbeat" && member.phase === "stable") return this.#heartbeat(member);
    if (action === "commit" && member.phase !== "joining") return this.#commit(member);
    if (action === "leave") return this.#leave(member);
    if (action === "crash") return this.#crash(member);
  }

  #tick(ms: number): void {
    this.#nowMs += ms;
    const expired = this.#group.expire(this.#nowMs);
    this.counts.expired += expired.length;
    this.#note(`+${ms} ms${expired.length > 0 ? `, expired ${expired.join(" ")}` : ""}`);
  }

  /** A (re)join: new user data, so every byte the leader passes on can be traced. */
  #join(client: Client, requireKnownMemberId: boolean): void {
    client.joins += 1;
    client.metadata = b64(`${client.name}/${client.joins}`);
    const request: ClassicJoinRequest = {
      memberId: client.memberId,
      groupInstanceId: client.instanceId,
      protocolType: "consumer",
      protocols: [{ name: "sim", metadata: client.metadata }],
      sessionTimeoutMs,
      rebalanceTimeoutMs,
      clientId: client.name,
      host: null,
      requireKnownMemberId,
      supportsSkipAssignment: true,
    };
    this.counts.joins += 1;
    this.#call(client, "join", () => {
      const outcome = this.#group.join(request, this.#nowMs);
      if (outcome.kind === "member-id-required") {
        client.memberId = outcome.memberId;
        return this.#join(client, true);
      }
      client.memberId = outcome.kind === "joined" ? outcome.answer.memberId : outcome.memberId;
      this.#sent.set(client.memberId, client.metadata);
      client.phase = "joining";
      if (outcome.kind === "joined") this.#joined(client, outcome.answer);
      else this.counts.held += 1;
    });
  }

  /** A client waiting on a held request looks again; `resend`: its answer was lost and it sends the request again. */
  #advance(client: Client, resend: boolean): void {
    if (client.phase === "stable") return;
    if (resend) {
      this.counts.lostAnswers += 1;
      if (client.phase === "joining") return this.#join(client, false);
      return this.#sync(client);
    }
    if (client.phase === "syncing") return this.#syncAnswer(client);
    this.#call(client, "join answer", () => {
      const answer = this.#group.joinAnswer(client.memberId, client.instanceId);
      if (answer === "rejoin") return this.#join(client, false);
      if (answer !== "waiting") this.#joined(client, answer);
    });
  }

  #joined(client: Client, answer: ClassicJoinAnswer): void {
    this.#expectGeneration(answer.generationId);
    client.generationId = answer.generationId;
    client.isLeader = answer.leader === client.memberId && !answer.skipAssignment;
    client.leaderMembers = answer.members;
    client.phase = "syncing";
    if (client.isLeader) {
      // Kafka's promise: the leader sees every member's metadata exactly as that member sent it.
      for (const { memberId, metadata } of answer.members) {
        if (metadata !== this.#sent.get(memberId)) throw new Error(`leader ${client.name} saw ${memberId}'s metadata ${text(metadata)}, it sent ${text(this.#sent.get(memberId) ?? "")}`);
      }
    }
    this.#note(`${client.name} (${client.memberId}) joined generation ${answer.generationId}${client.isLeader ? ", leading " + answer.members.length : ""}`);
    this.#sync(client);
  }

  #sync(client: Client): void {
    const assignments = client.isLeader ? this.#assign(client) : [];
    this.#call(client, "sync", () => {
      const outcome = this.#group.sync(
        { memberId: client.memberId, groupInstanceId: client.instanceId, generationId: client.generationId, protocolType: "consumer", protocolName: "sim", assignments },
        this.#nowMs,
      );
      if (outcome.kind === "synced") this.#synced(client, outcome.answer.assignment);
      else this.counts.held += 1;
    });
  }

  /** Round robin by member id; each member's bytes name it, the leader, the generation and the metadata the leader saw. */
  #assign(leader: Client): { memberId: string; assignment: string }[] {
    const members = [...leader.leaderMembers].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
    const given = new Map<string, string>();
    const assignments = members.map(({ memberId, metadata }, index) => {
      const mine = Array.from({ length: partitions }, (_, partition) => partition).filter((partition) => partition % members.length === index);
      const assignment = b64(JSON.stringify({ for: memberId, by: leader.memberId, generation: leader.generationId, saw: text(metadata), partitions: mine }));
      given.set(memberId, assignment);
      return { memberId, assignment };
    });
    this.#assigned.set(leader.generationId, given);
    return assignments;
  }

  #syncAnswer(client: Client): void {
    this.#call(client, "sync answer", () => {
      const answer = this.#group.syncAnswer(client.memberId, client.instanceId, client.generationId);
      if (answer !== "waiting") this.#synced(client, answer.assignment);
    });
  }

  #synced(client: Client, assignment: string): void {
    const expected = this.#assigned.get(client.generationId)?.get(client.memberId);
    // A static member that took over an id keeps the bytes its instance had: they name the former id.
    const tookOver = expected === undefined && assignment !== "";
    if (!tookOver && assignment !== (expected ?? "")) throw new Error(`${client.name} got ${text(assignment)}, the leader sent it ${text(expected ?? "")}`);
    client.owned = assignment === "" ? [] : (JSON.parse(text(assignment)) as { partitions: number[] }).partitions;
    client.phase = "stable";
    this.#note(`${client.name} stable at ${client.generationId} with ${client.owned.join(",") || "nothing"}`);
  }

  #heartbeat(client: Client): void {
    this.#call(client, "heartbeat", () => {
      if (this.#group.heartbeat(client.memberId, client.instanceId, client.generationId, this.#nowMs).rebalance) {
        this.counts.rebalances += 1;
        client.owned = []; // an eager member gives everything up before it rejoins
        this.#join(client, false);
      }
    });
  }

  #commit(client: Client): void {
    this.#call(client, "commit", () => {
      this.#group.checkCommit(client.memberId, client.instanceId, client.generationId);
      this.counts.commits += 1;
    });
  }

  #leave(client: Client): void {
    this.counts.leaves += 1;
    const [result] = this.#group.leave([{ memberId: client.memberId, groupInstanceId: client.instanceId }], this.#nowMs);
    this.#note(`${client.name} left${result!.error === null ? "" : ` (${result!.error.code})`}`);
    this.#down(client, true);
  }

  #crash(client: Client): void {
    this.counts.crashes += 1;
    this.#note(`${client.name} crashed`);
    // A static member restarts under its instance id with no member id; a dynamic one is a new member.
    this.#down(client, client.instanceId === null);
  }

  /** Another process with a running static member's instance id: it takes the id over, the running one is fenced. */
  #duplicate(): void {
    const original = this.#clients.find((client) => client.instanceId !== null && client.phase !== "down");
    if (original === undefined) return;
    this.counts.duplicates += 1;
    const twin = this.#newClient(`${original.name}'`, original.instanceId);
    this.#clients.push(twin);
    this.#note(`${twin.name} starts as a duplicate of ${original.name}`);
    this.#join(twin, false);
  }

  #down(client: Client, forgetId: boolean): void {
    client.phase = "down";
    client.owned = [];
    client.generationId = -1;
    if (forgetId) client.memberId = "";
    if (client.instanceId !== null) client.memberId = "";
  }

  /** Runs a client's request; a refusal sends the client back as Kafka's clients go back. */
  #call(client: Client, what: string, action: () => void): void {
    try {
      action();
    } catch (error) {
      if (!(error instanceof TributaryError)) throw error;
      this.#note(`${client.name} ${what}: ${error.code}`);
      if (error.code === "FENCED_INSTANCE_ID") {
        this.counts.fenced += 1;
        this.#down(client, true);
        // A fenced process stops; its slot is free for a new process under another name.
        this.#clients.splice(this.#clients.indexOf(client), 1);
      } else if (error.code === "UNKNOWN_MEMBER_ID") {
        this.#down(client, true);
      } else if (error.code === "REBALANCE_IN_PROGRESS" || error.code === "FENCED_MEMBER_EPOCH") {
        client.owned = [];
        if (what !== "commit") this.#join(client, false);
      } else {
        throw error;
      }
    }
  }

  #expectGeneration(generationId: number): void {
    if (generationId < this.#highestGeneration - 1_000_000) throw new Error("unreachable");
    this.#highestGeneration = Math.max(this.#highestGeneration, generationId);
  }

  #check(): void {
    const state = this.#group.toState();
    if (state.generationId < this.#highestGeneration) throw new Error(`generation went back: ${state.generationId} < ${this.#highestGeneration}`);
    if (state.members.length > 0 && !state.members.some(({ memberId }) => memberId === state.leaderId)) throw new Error(`leader ${String(state.leaderId)} is no member`);
    const instances = state.members.map(({ groupInstanceId }) => groupInstanceId).filter((id) => id !== null);
    if (new Set(instances).size !== instances.length) throw new Error(`two members of one instance: ${instances.join(" ")}`);
    const holders = new Map<number, string>();
    for (const client of this.#clients) {
      if (client.phase !== "stable" || client.generationId !== state.generationId || state.status !== "Stable") continue;
      if (!state.members.some(({ memberId }) => memberId === client.memberId)) continue;
      for (const partition of client.owned) {
        const holder = holders.get(partition);
        if (holder !== undefined) throw new Error(`partition ${partition} held by ${holder} and ${client.name} at generation ${state.generationId}`);
        holders.set(partition, client.name);
      }
    }
  }

  /** No more faults: every running client keeps answering until the group is stable with all of them, every partition held once. */
  #settle(): void {
    for (let round = 0; round < 200; round++) {
      const state = this.#group.toState();
      const running = this.#clients.filter((client) => client.phase !== "down");
      const settled = state.status === "Stable" && running.every((client) => client.phase === "stable" && client.generationId === state.generationId);
      if (running.length === 0 && state.members.length === 0) return;
      if (settled && state.members.length === running.length) {
        const held = running.flatMap(({ owned }) => owned).sort();
        if (running.length > 0 && held.join() !== Array.from({ length: partitions }, (_, partition) => partition).join()) throw new Error(`settled with partitions ${held.join(",")}`);
        return;
      }
      for (const client of running) {
        if (client.phase === "stable") this.#heartbeat(client);
        else this.#advance(client, false);
      }
      this.#tick(1_000);
      this.#check();
    }
    throw new Error("the group did not settle");
  }

  #note(line: string): void {
    const state = this.#group.toState();
    this.log.push(`${this.#nowMs} [${state.status} g${state.generationId} leader ${state.leaderId ?? "-"}] ${line}`);
  }
}
