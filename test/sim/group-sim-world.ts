/**
 * A seeded world around one ConsumerGroup: simulated consumers join, heartbeat (some as the
 * gateway's classic members: check in, commit what they hold, rejoin when told), lose
 * responses, leave, crash silently, pause past their session and come back, change
 * subscriptions; topics grow; a fake clock runs the object's alarm; the coordinator restarts
 * from the row it persisted (as the object writes it: when the revision moves, and contact
 * times lazily, src/group/member-contacts.ts). After every call into the group the invariants
 * of group-sim-checks.ts are checked, and at every alarm that no member expired before its
 * session ran out since its last accepted request, nor survived that by more than the slack. Everything that happens is logged,
 * so a failing seed reads as a story and replays exactly.
 */

import { TributaryError } from "../../src/errors.ts";
import { partitionKey, type Assignment, type TopicsMeta } from "../../src/group/assignment.ts";
import type { AssignorName } from "../../src/group/assignor.ts";
import { ConsumerGroup } from "../../src/group/group.ts";
import type { GroupState } from "../../src/group/group-state.ts";
import { contactPersistLagMsFor, PersistedContacts } from "../../src/group/member-contacts.ts";
import { checkEpochs, checkMinimalMoves, checkOwnership, checkSettled, checkSubscribed, checkUnchanged, ownedBy } from "./group-sim-checks.ts";
import type { ClientView } from "./group-sim-checks.ts";
import { SeededRandom } from "./group-sim-random.ts";

interface Client extends ClientView {
  epoch: number;
  status: "live" | "crashed" | "paused";
  subscription: string[];
  sessionTimeoutMs: number;
  /** What the client knew before its last answer: a commit it sent then may arrive after. */
  before?: { epoch: number; owned: Assignment };
}

/** What happened across a run, so a test can show that every fault was exercised. */
export interface SimCounts {
  calls: number;
  joins: number;
  lostResponses: number;
  fenced: number;
  unknownMember: number;
  expired: number;
  leaves: number;
  grown: number;
  settles: number;
  staleMetadata: number;
  restarts: number;
  classicRebalances: number;
  commits: number;
  commitsFenced: number;
}

const topicNames = ["t0", "t1", "t2"];
const clientsMax = 10;
const partitionsMax = 16;
const settleRoundsMax = 60;
/** A third of the shortest session: live clients heartbeat as often as the group asks. */
const settleRoundMs = 2_000;

export class GroupSim {
  readonly log: string[] = [];
  readonly counts: SimCounts = {
    calls: 0,
    joins: 0,
    lostResponses: 0,
    fenced: 0,
    unknownMember: 0,
    expired: 0,
    leaves: 0,
    grown: 0,
    settles: 0,
    staleMetadata: 0,
    restarts: 0,
    classicRebalances: 0,
    commits: 0,
    commitsFenced: 0,
  };
  readonly #random: SeededRandom;
  readonly #generateMemberId: () => string;
  #group: ConsumerGroup;
  /** The object's state row and its contact bookkeeping. */
  #contacts = new PersistedContacts();
  #row: GroupState;
  /** When the group last accepted a request from each member: the truth expiry is held to. */
  readonly #heardAt = new Map<string, number>();
  readonly #clients: Client[] = [];
  readonly #highestEpochs = new Map<string, number>();
  readonly #subscriptions: string[][];
  readonly #assignor: AssignorName | undefined;
  #partitions: Record<string, number>;
  #stalePartitions: Record<string, number>;
  #nowMs = 1_000_000;
  #nextClient = 1;

  constructor(seed: number) {
    this.#random = new SeededRandom(seed);
    // Random ids, as crypto.randomUUID gives the object: id order must not follow join order.
    const ids = new SeededRandom(seed ^ 0x5eed);
    this.#generateMemberId = () => `m-${ids.int(0, 0xffffff).toString(16).padStart(6, "0")}`;
    this.#group = new ConsumerGroup({ generateMemberId: this.#generateMemberId });
    this.#row = this.#contacts.toRow(this.#group.toState())!;
    this.#partitions = Object.fromEntries(topicNames.map((topic) => [topic, this.#random.int(1, 6)]));
    this.#stalePartitions = { ...this.#partitions };
    const subscription = () => topicNames.filter(() => this.#random.chance(0.6)).concat();
    const pool = this.#random.chance(0.5) ? 1 : this.#random.int(2, 3);
    this.#subscriptions = Array.from({ length: pool }, () => {
      const topics = subscription();
      return topics.length > 0 ? topics : [this.#random.pick(topicNames)];
    });
    this.#assignor = this.#random.pick<AssignorName | undefined>(["uniform", "range", undefined]);
    const subscriptions = JSON.stringify(this.#subscriptions);
    this.#say(`world: partitions ${JSON.stringify(this.#partitions)}, subscriptions ${subscriptions}, assignor ${this.#assignor ?? "(default)"}`);
  }

  run(steps: number): void {
    for (let step = 0; step < steps; step++) this.step();
    this.settle();
  }

  step(): void {
    this.#advance(this.#random.int(0, 1_500));
    const live = this.#clients.filter((client) => client.status === "live");
    const paused = this.#clients.filter((client) => client.status === "paused");
    const action = this.#random.weighted({
      join: this.#clients.length < clientsMax ? 8 : 0,
      heartbeat: live.length > 0 ? 40 : 0,
      classicCheckIn: live.length > 0 ? 10 : 0,
      commit: live.length > 0 ? 8 : 0,
      lostHeartbeat: live.length > 0 ? 8 : 0,
      leave: live.length > 0 ? 3 : 0,
      crash: live.length > 0 ? 3 : 0,
      pause: live.length > 0 ? 2 : 0,
      resume: paused.length > 0 ? 5 : 0,
      subscribe: live.length > 0 && this.#subscriptions.length > 1 ? 4 : 0,
      grow: 3,
      restart: 3,
      sleep: 4,
      settle: 1,
    });
    if (action === "join") this.#join(this.#newClient());
    if (action === "heartbeat") this.#heartbeat(this.#random.pick(live), false);
    if (action === "lostHeartbeat") this.#heartbeat(this.#random.pick(live), true);
    if (action === "classicCheckIn") this.#classicCheckIn(this.#random.pick(live));
    if (action === "commit") this.#commit(this.#random.pick(live));
    if (action === "subscribe") this.#heartbeat(this.#random.pick(live), false, this.#random.pick(this.#subscriptions));
    if (action === "leave") this.#leave(this.#random.pick(live));
    if (action === "crash" || action === "pause") {
      const client = this.#random.pick(live);
      client.status = action === "crash" ? "crashed" : "paused";
      this.#say(`${client.name} ${action === "crash" ? "crashes silently" : "pauses"}`);
    }
    if (action === "resume") {
      const client = this.#random.pick(paused);
      client.status = "live";
      this.#say(`${client.name} resumes`);
      this.#heartbeat(client, false);
    }
    if (action === "grow") this.#grow();
    if (action === "restart") this.#restart();
    if (action === "sleep") this.#advance(this.#random.int(3_000, 25_000));
    if (action === "settle") this.settle();
  }

  /**
   * Every live client heartbeats each round until the dead have expired and a full
   * round changes nothing; then the layout must be complete and balanced.
   */
  settle(): void {
    this.#say("settle: live clients heartbeat until nothing changes");
    for (let round = 0; round < settleRoundsMax; round++) {
      const revision = this.#group.revision;
      this.#advance(settleRoundMs);
      for (const client of this.#clients.filter((candidate) => candidate.status === "live")) this.#heartbeat(client, false);
      const state = this.#group.toState();
      const liveIds = new Set(this.#clients.filter((client) => client.status === "live").map((client) => client.memberId));
      const quiet = revision === this.#group.revision && state.members.every((member) => liveIds.has(member.memberId));
      if (quiet && this.#group.describe().state !== "Reconciling") {
        checkSettled(state);
        this.counts.settles += 1;
        this.#say(`settled after ${round + 1} rounds: ${this.#layout(state)}`);
        return;
      }
    }
    throw new Error(`did not settle within ${settleRoundsMax} rounds: ${this.#layout(this.#group.toState())}`);
  }

  #newClient(): Client {
    const client: Client = {
      name: `c${this.#nextClient++}`,
      memberId: null,
      owned: [],
      epoch: 0,
      status: "live",
      subscription: this.#random.pick(this.#subscriptions),
      sessionTimeoutMs: this.#random.int(6_000, 20_000),
    };
    this.#clients.push(client);
    return client;
  }

  #join(client: Client): void {
    const lost = this.#random.chance(0.1);
    this.#checked(() => {
      const request = { topics: client.subscription, sessionTimeoutMs: client.sessionTimeoutMs, assignor: this.#assignor };
      const answer = this.#group.join(request, this.#meta(), this.#nowMs);
      this.#heardAt.set(answer.memberId, this.#nowMs);
      this.counts.joins += 1;
      const outcome = `${answer.memberId} e${answer.memberEpoch} ${format(answer.assignment)}${lost ? " (answer lost)" : ""}`;
      this.#say(`${client.name} joins ${client.subscription.join("+")} → ${outcome}`);
      if (lost) return void (this.counts.lostResponses += 1);
      Object.assign(client, { memberId: answer.memberId, epoch: answer.memberEpoch, owned: answer.assignment, before: undefined });
    });
  }

  #heartbeat(client: Client, lost: boolean, topics?: string[]): void {
    if (client.memberId === null) return this.#join(client);
    const memberId = client.memberId;
    if (topics !== undefined) client.subscription = topics;
    const ownedPartitions = this.#random.chance(0.5) ? client.owned : undefined;
    const sent =
      `${client.name} heartbeat e${client.epoch}` +
      (ownedPartitions ? ` owns ${format(ownedPartitions)}` : "") +
      (topics ? ` topics ${topics.join("+")}` : "");
    this.#checked((before) => {
      try {
        const request = { memberEpoch: client.epoch, ownedPartitions, topics: client.epoch === 0 ? client.subscription : topics };
        const answer = this.#group.heartbeat(memberId, request, this.#meta(), this.#nowMs);
        this.#heardAt.set(memberId, this.#nowMs);
        this.#say(`${sent} → e${answer.memberEpoch} ${format(answer.assignment)}${lost ? " (answer lost)" : ""}`);
        if (answer.memberEpoch < client.epoch) throw new Error(`${client.name} was answered with an older epoch`);
        if (lost) return void (this.counts.lostResponses += 1);
        client.before = { epoch: client.epoch, owned: client.owned };
        client.epoch = answer.memberEpoch;
        client.owned = answer.assignment;
      } catch (error) {
        if (!(error instanceof TributaryError)) throw error;
        this.#say(`${sent} → ${error.code}`);
        if (error.code === "FENCED_MEMBER_EPOCH") this.counts.fenced += 1;
        else if (error.code === "UNKNOWN_MEMBER_ID") this.counts.unknownMember += 1;
        else throw error;
        if (JSON.stringify(this.#group.toState()) !== JSON.stringify(before)) throw new Error(`${error.code} changed the group's state`);
        // Fenced or forgotten: give up everything; rejoin with epoch 0, or join anew.
        Object.assign(client, { epoch: 0, owned: [], memberId: error.code === "UNKNOWN_MEMBER_ID" ? null : memberId });
      }
    });
  }

  /**
   * As the Kafka gateway's classic members: a check-in that moves nothing, then a commit of all
   * the client holds (always its own); told to rebalance, the client gives everything up
   * (eager) and rejoins with epoch 0 at its next heartbeat.
   */
  #classicCheckIn(client: Client): void {
    if (client.memberId === null || client.epoch === 0) return this.#heartbeat(client, false);
    const memberId = client.memberId;
    this.#checked(() => {
      let rebalance: boolean;
      try {
        rebalance = this.#group.classicHeartbeat(memberId, client.epoch, this.#meta(), this.#nowMs).rebalance;
        this.#heardAt.set(memberId, this.#nowMs);
      } catch (error) {
        if (!(error instanceof TributaryError)) throw error;
        this.#say(`${client.name} classic check-in e${client.epoch} → ${error.code}`);
        if (error.code === "FENCED_MEMBER_EPOCH") this.counts.fenced += 1;
        else if (error.code === "UNKNOWN_MEMBER_ID") this.counts.unknownMember += 1;
        else throw error;
        Object.assign(client, { epoch: 0, owned: [], memberId: error.code === "UNKNOWN_MEMBER_ID" ? null : memberId });
        return;
      }
      const held = client.owned.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition })));
      this.#group.checkCommit(memberId, client.epoch, held, { classic: true });
      this.#say(`${client.name} classic check-in e${client.epoch}, commits ${format(client.owned)} → ${rebalance ? "rebalance" : "stay"}`);
      if (!rebalance) return;
      this.counts.classicRebalances += 1;
      Object.assign(client, { epoch: 0, owned: [] });
    });
  }

  /**
   * A KIP-848 member commits what it believes it holds, at the epoch it knows (stale after a
   * lost answer) or, as a commit sent before its last answer arrived, what it held before.
   * Accepted, every partition must be the member's alone on the server: a commit from a member
   * that no longer owns a partition could overwrite its new owner's progress.
   */
  #commit(client: Client): void {
    if (client.memberId === null || client.epoch === 0) return;
    const memberId = client.memberId;
    const view = client.before !== undefined && client.before.epoch > 0 && this.#random.chance(0.3) ? client.before : client;
    const { epoch, owned } = view;
    const partitions = owned.flatMap(({ topic, partitions: numbers }) => numbers.map((partition) => ({ topic, partition })));
    this.#checked((before) => {
      try {
        this.#group.checkCommit(memberId, epoch, partitions);
      } catch (error) {
        if (!(error instanceof TributaryError) || (error.code !== "FENCED_MEMBER_EPOCH" && error.code !== "UNKNOWN_MEMBER_ID")) throw error;
        this.counts.commitsFenced += 1;
        return this.#say(`${client.name} commits ${format(owned)} at e${epoch} → ${error.code}`);
      }
      this.counts.commits += 1;
      this.#say(`${client.name} commits ${format(owned)} at e${epoch}`);
      for (const { topic, partition } of partitions) {
        const owners = before.members.filter((member) => ownedBy(member).has(partitionKey(topic, partition))).map((member) => member.memberId);
        if (owners.length !== 1 || owners[0] !== memberId) throw new Error(`${client.name}'s commit of ${topic}:${partition} accepted, owned by ${owners.join(",") || "nobody"}`);
      }
    });
  }

  #leave(client: Client): void {
    this.#clients.splice(this.#clients.indexOf(client), 1);
    if (client.memberId === null) return this.#say(`${client.name} walks away before its join answer`);
    const memberId = client.memberId;
    this.#checked(() => {
      try {
        this.#group.leave(memberId);
        this.counts.leaves += 1;
        this.#say(`${client.name} leaves`);
      } catch (error) {
        if (!(error instanceof TributaryError) || error.code !== "UNKNOWN_MEMBER_ID") throw error;
        this.#say(`${client.name} leaves → UNKNOWN_MEMBER_ID (already expired)`);
      }
    });
  }

  #grow(): void {
    const topic = this.#random.pick(topicNames);
    if (this.#partitions[topic]! >= partitionsMax) return;
    this.#stalePartitions = { ...this.#partitions };
    this.#partitions[topic]! += this.#random.int(1, 3);
    this.counts.grown += 1;
    this.#say(`${topic} grows to ${this.#partitions[topic]} partitions`);
  }

  /** What a router would pass: usually current, sometimes a stale cache from before the last growth. */
  #meta(): TopicsMeta {
    const stale = this.#random.chance(0.15);
    if (stale) this.counts.staleMetadata += 1;
    const counts = stale ? this.#stalePartitions : this.#partitions;
    return Object.fromEntries(Object.entries(counts).map(([topic, partitions]) => [topic, { partitions }]));
  }

  /** The object restarts: the group as its row holds it, each member heard from at the latest time it may have been. */
  #restart(): void {
    const state = structuredClone(this.#row);
    this.#contacts = new PersistedContacts();
    this.#contacts.load(state, this.#nowMs);
    this.#group = new ConsumerGroup({ generateMemberId: this.#generateMemberId }, state);
    checkUnchanged(this.#row, this.#group.toState());
    this.counts.restarts += 1;
    this.#say("the coordinator restarts from its row");
  }

  /** As the object after every request: the row is written when the revision moved or a contact time is due. */
  #persist(): void {
    if (this.#group.revision === this.#row.revision && !this.#contacts.due(this.#group.contacts())) return;
    this.#row = this.#contacts.toRow(this.#group.toState())!;
  }

  /** Kafka's rule with the slack: expired no earlier than the session after the last accepted request, and at most a quarter session later. */
  #checkExpiry(expired: readonly string[], before: GroupState): void {
    for (const member of before.members) {
      const deadline = this.#heardAt.get(member.memberId)! + member.sessionTimeoutMs;
      if (expired.includes(member.memberId) && this.#nowMs < deadline) throw new Error(`${member.memberId} expired before its session ran out`);
      if (!expired.includes(member.memberId) && this.#nowMs >= deadline + contactPersistLagMsFor(member.sessionTimeoutMs)) {
        throw new Error(`${member.memberId} outlived its session by more than the slack`);
      }
    }
  }

  /** Moves the fake clock; the object's alarm fires at the group's next deadline. */
  #advance(ms: number): void {
    this.#nowMs += ms;
    const deadline = this.#group.nextDeadlineMs();
    if (deadline === null || deadline > this.#nowMs) return;
    this.#checked((before) => {
      const expired = this.#group.expire(this.#nowMs);
      const due = before.members.filter((member) => member.lastContactMs + member.sessionTimeoutMs <= this.#nowMs);
      const dueIds = due.map((member) => member.memberId).join();
      if (dueIds !== expired.join()) throw new Error(`expired [${expired.join()}], due [${dueIds}]`);
      if ((this.#group.nextDeadlineMs() ?? Infinity) <= this.#nowMs) throw new Error("a member past its deadline survived the alarm");
      this.#checkExpiry(expired, before);
      this.counts.expired += expired.length;
      this.#say(`alarm at ${this.#nowMs}: expired ${expired.join(", ") || "nobody"}`);
      // A crashed client whose member is gone has nothing left to check.
      for (const client of this.#clients.filter((candidate) => candidate.status === "crashed" && expired.includes(candidate.memberId ?? ""))) {
        this.#clients.splice(this.#clients.indexOf(client), 1);
      }
    });
  }

  /** Runs one call into the group with its client-side effects, then checks every invariant. */
  #checked(body: (before: GroupState) => void): void {
    const before = this.#group.toState();
    body(before);
    this.#persist();
    this.counts.calls += 1;
    const after = this.#group.toState();
    checkOwnership(after, this.#clients); // clients change even when the group does not
    if (after.revision === before.revision) return checkUnchanged(before, after);
    checkEpochs(after, this.#highestEpochs);
    checkSubscribed(after);
    checkMinimalMoves(before, after);
  }

  #layout(state: GroupState): string {
    return state.members.map((member) => `${member.memberId}=${format(member.assignment)}`).join(" ") || "(empty)";
  }

  #say(line: string): void {
    this.log.push(`[${this.#nowMs}] ${line}`);
  }
}

function format(assignment: Assignment): string {
  return `{${assignment.map(({ topic, partitions }) => `${topic}:${partitions.join(",")}`).join(" ")}}`;
}
