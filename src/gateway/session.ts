/**
 * What the gateway holds per credential (its own `--token`, or the token a client authenticated with over SASL):
 * the client for that token, its transport for routes the client does not wrap, Fetch's reads
 * of stored record batches (over node:http, upstream-read.ts), and the topic
 * listing Metadata answers from — trusted for at most 5 s (gatewayMetadataMaxAgeMs), dropped at
 * once when an answer says it is stale. Sessions are shared by the connections with the same
 * token and forgotten when the last one closes. Topic ids (Metadata v10+, Fetch v13+) are each
 * topic's Tributary UUID as Kafka's 16 bytes, described once per name and forgotten with the
 * listing (a topic deleted and created again has a new id); partitions' leader epochs are
 * described with the same freshness as the listing.
 */
import { Secret } from "../client/secret.ts";
import { Transport } from "../client/transport.ts";
import { Tributary } from "../client/tributary.ts";
import type { TopicSummary } from "../client/types.ts";
import { gatewayMetadataMaxAgeMs } from "../limits.ts";
import { recordBatchPostOverHttp } from "./upstream-post.ts";
import { recordBatchReadsOverHttp, type RecordsRead } from "./upstream-read.ts";

export interface SessionOptions {
  url: string;
  /** How long a call to Tributary may take beyond its own long-poll wait. */
  requestTimeoutMs: number;
}

export class Session {
  readonly tributary: Tributary;
  readonly transport: Transport;
  /** Fetch's binary reads, over node:http (upstream-read.ts). */
  readonly readRecords: RecordsRead;
  #listing: { topics: TopicSummary[]; atMs: number } | undefined;
  #loading: Promise<TopicSummary[]> | undefined;
  /** Counts invalidate() calls: a listing asked for under an older count is not kept. */
  #generation = 0;
  readonly #ids = new Map<string, Promise<Uint8Array | undefined>>();
  readonly #epochs = new Map<string, { atMs: number; epochs: Promise<number[] | undefined> }>();
  /** Topic names by Kafka id (hex), for the listing they were read from: a request naming topics by id (Fetch v13+, Produce v13, OffsetCommit v10) looks up a map. */
  #named: { listing: TopicSummary[]; byId: Map<string, string> } | undefined;
  users = 0;

  constructor(options: SessionOptions, token: string | undefined) {
    const secret = token === undefined || token === "" ? undefined : new Secret(token);
    this.tributary = new Tributary({ url: options.url, token: secret, requestTimeoutMs: options.requestTimeoutMs, logLevel: "nothing" });
    this.transport = new Transport({
      baseUrl: this.tributary.config.url,
      server: new URL(this.tributary.config.url).origin,
      token: secret,
      fetch: recordBatchPostOverHttp((request) => globalThis.fetch(request)),
      requestTimeoutMs: options.requestTimeoutMs,
    });
    this.readRecords = recordBatchReadsOverHttp({ baseUrl: this.tributary.config.url, server: new URL(this.tributary.config.url).origin, token: secret, requestTimeoutMs: options.requestTimeoutMs });
  }

  /** Every topic the token may describe, at most 5 s old (`refresh`: asked again now). */
  async topics(refresh = false): Promise<TopicSummary[]> {
    const listing = this.#listing;
    if (!refresh && listing !== undefined && Date.now() - listing.atMs <= gatewayMetadataMaxAgeMs) return listing.topics;
    if (this.#loading === undefined) {
      // A listing asked for before an invalidate() may not hold its change: it is handed to
      // those who asked, never kept, and later calls ask again.
      const generation = this.#generation;
      const loading = this.tributary
        .admin()
        .topics.list()
        .then((topics) => {
          if (generation === this.#generation) this.#listing = { topics, atMs: Date.now() };
          return topics;
        })
        .finally(() => {
          if (this.#loading === loading) this.#loading = undefined;
        });
      this.#loading = loading;
    }
    return this.#loading;
  }

  /** Forgets the listing and the topic ids: a topic was created, deleted or grown, or an answer said it was stale. */
  invalidate(): void {
    this.#listing = undefined;
    this.#loading = undefined;
    this.#generation++;
    this.#ids.clear();
    this.#epochs.clear();
  }

  /**
   * Each partition's leader epoch (Tributary's own: it grows at every election), at most 5 s
   * old, as the listing (`refresh`: described again now); undefined when the topic cannot be
   * described. Metadata reports them, OffsetForLeaderEpoch checks a client's against them.
   */
  leaderEpochs(name: string, refresh = false): Promise<number[] | undefined> {
    const held = this.#epochs.get(name);
    if (!refresh && held !== undefined && Date.now() - held.atMs <= gatewayMetadataMaxAgeMs) return held.epochs;
    const epochs = this.tributary
      .admin()
      .topics.describe(name)
      .then((topic) => topic.partitions.map((partition) => partition.leaderEpoch ?? 0))
      .catch(() => {
        this.#epochs.delete(name);
        return undefined;
      });
    this.#epochs.set(name, { atMs: Date.now(), epochs });
    return epochs;
  }

  /** The topic's Kafka id (its Tributary UUID's 16 bytes); undefined when it cannot be described. */
  topicId(name: string): Promise<Uint8Array | undefined> {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.tributary
        .admin()
        .topics.describe(name)
        .then((topic) => uuidBytes(topic.topicId))
        .catch(() => {
          this.#ids.delete(name);
          return undefined;
        });
      this.#ids.set(name, id);
    }
    return id;
  }

  /** The name of the topic with Kafka id `id`, among the topics this token may describe; undefined when none has it. */
  async topicNamed(id: Uint8Array): Promise<string | undefined> {
    const wanted = Buffer.from(id).toString("hex");
    const find = async (topics: TopicSummary[]) => {
      if (this.#named?.listing !== topics) {
        const ids = await Promise.all(topics.map((topic) => this.topicId(topic.name)));
        const byId = new Map<string, string>();
        ids.forEach((candidate, index) => candidate !== undefined && byId.set(Buffer.from(candidate).toString("hex"), topics[index]!.name));
        this.#named = { listing: topics, byId };
      }
      return this.#named.byId.get(wanted);
    };
    return (await find(await this.topics())) ?? (await find(await this.topics(true)));
  }
}

/** Sessions by token (the empty string: no token). */
export class Sessions {
  readonly #options: SessionOptions;
  readonly #byToken = new Map<string, Session>();

  constructor(options: SessionOptions) {
    this.#options = options;
  }

  /** The session of `token`, counted as used until `release`. */
  acquire(token: string | undefined): Session {
    const key = token ?? "";
    let session = this.#byToken.get(key);
    if (session === undefined) {
      session = new Session(this.#options, token);
      this.#byToken.set(key, session);
    }
    session.users += 1;
    return session;
  }

  release(token: string | undefined, session: Session): void {
    session.users -= 1;
    const key = token ?? "";
    if (session.users <= 0 && this.#byToken.get(key) === session) this.#byToken.delete(key);
  }
}

/** A UUID's text ("8-4-4-4-12" hex digits) as its 16 bytes. */
export function uuidBytes(uuid: string): Uint8Array {
  const hex = uuid.replace(/-/g, "");
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a UUID: ${JSON.stringify(uuid)}`);
  return new Uint8Array(Buffer.from(hex, "hex"));
}
