/**
 * The Kafka gateway: a TCP (or TLS) listener whose clients speak Kafka's protocol, answered
 * through Tributary's HTTP API. Stateless: every answer comes from the deployment, so any number
 * of gateways may run side by side and one that dies loses nothing.
 *
 * `startGateway` checks the deployment first (a deployment that needs a token refuses to be
 * served without one), then listens. `stop` stops accepting, lets in-flight requests be
 * answered for up to `drainMs`, then closes what is left.
 */
import { createServer, type Server, type Socket } from "node:net";
import { createServer as createTlsServer } from "node:tls";
import { path } from "../client/transport.ts";
import { TributaryError } from "../errors.ts";
import { gatewayConnectionsMax, gatewayDrainMs, gatewayFrameBytesMax } from "../limits.ts";
import { gatewayHandlers } from "./all-handlers.ts";
import { GatewayConnection } from "./connection.ts";
import { GatewayStats } from "./gateway-stats.ts";
import type { BrokerInfo, GatewayHandlers } from "./handler-types.ts";
import { kafkaErrorCode, kafkaErrors } from "./kafka-errors.ts";
import { Sessions, type Session } from "./session.ts";

export interface HostPort {
  host: string;
  port: number;
}

export interface GatewayOptions {
  /** Tributary's base URL. */
  url: string;
  listen: HostPort;
  /** What clients are told to connect to; the listening address by default. */
  advertise?: HostPort;
  token?: string;
  tls?: { cert: string | Buffer; key: string | Buffer };
  autoCreateTopics?: boolean;
  maxConnections?: number;
  /**
   * Kafka's connections.max.reauth.ms: how long a SASL session lasts before the client must
   * authenticate again (KIP-368) or be disconnected. Without it, PLAIN and OAUTHBEARER sessions
   * have no end and SCRAM's last as the deployment's session token (an hour by default).
   */
  maxReauthMs?: number;
  /** Handlers by API key; every one the gateway has by default. */
  handlers?: GatewayHandlers;
  /** Where connection errors are said (one line each). */
  log?: (line: string) => void;
  /** Per call to Tributary, beyond a long poll's own wait. */
  requestTimeoutMs?: number;
}

export interface Gateway {
  /** Where it listens (the port chosen when `listen.port` was 0). */
  readonly address: HostPort;
  readonly broker: BrokerInfo;
  /** Open client connections. */
  readonly connections: number;
  /** What the gateway counted since it started (`--metrics` serves it). */
  readonly stats: GatewayStats;
  /** Stops accepting, answers what is in flight (at most `drainMs`), closes every connection. */
  stop(drainMs?: number): Promise<void>;
}

/**
 * The deployment's cluster id (`GET /v1/cluster`, Kafka's form), the same through every gateway
 * and every URL of it: the controller makes it once.
 */
async function deploymentClusterId(session: Session): Promise<string> {
  return (await session.transport.json<{ clusterId: string }>({ method: "GET", path: path("cluster") })).clusterId;
}

/** 0 when the session's token may use the deployment, else a Kafka error code. Network failures throw. */
async function checkToken(session: Session): Promise<number> {
  try {
    await session.topics(true);
    return kafkaErrors.NONE;
  } catch (error) {
    if (error instanceof TributaryError && (error.code === "NETWORK_EXCEPTION" || error.code === "REQUEST_TIMED_OUT")) throw error;
    return kafkaErrorCode(error);
  }
}

export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const sessions = new Sessions({ url: options.url, requestTimeoutMs: options.requestTimeoutMs ?? 30_000 });
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const first = sessions.acquire(options.token);
  const unreachable = (error: unknown) => {
    throw new Error(`cannot reach Tributary at ${options.url}: ${error instanceof Error ? error.message : String(error)}`);
  };
  const code = await checkToken(first).catch(unreachable);
  if (code === kafkaErrors.SASL_AUTHENTICATION_FAILED) {
    throw new Error(
      options.token === undefined
        ? `${options.url} needs a token: give --token or TRIBUTARY_TOKEN (clients may also authenticate with their own over SASL)`
        : `${options.url} refused the token (unknown, expired or revoked)`,
    );
  }
  const clusterId = await deploymentClusterId(first).catch(unreachable);
  const server: Server = options.tls ? createTlsServer({ cert: options.tls.cert, key: options.tls.key }) : createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listen.port, options.listen.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = server.address();
  const address = { host: options.listen.host, port: typeof bound === "object" && bound !== null ? bound.port : options.listen.port };
  const advertised = options.advertise ?? address;
  const broker: BrokerInfo = {
    nodeId: 0,
    host: advertised.host,
    port: advertised.port === 0 ? address.port : advertised.port,
    clusterId,
    autoCreateTopics: options.autoCreateTopics === true,
  };
  const maxConnections = options.maxConnections ?? gatewayConnectionsMax;
  const connections = new Set<GatewayConnection>();
  const stats = new GatewayStats();
  let nextId = 1;
  const onSocket = (socket: Socket) => {
    const id = nextId++;
    if (connections.size >= maxConnections) {
      log(`connection ${id} from ${socket.remoteAddress}:${socket.remotePort} closed: ${maxConnections} connections already open (--max-connections)`);
      socket.destroy();
      return;
    }
    const connection = new GatewayConnection(socket, id, {
      handlers: options.handlers ?? gatewayHandlers,
      broker,
      sessions,
      token: options.token,
      maxFrameBytes: gatewayFrameBytesMax,
      log,
      checkToken,
      stats,
      maxReauthMs: options.maxReauthMs ?? 0,
    });
    stats.connectionsOpened += 1;
    connections.add(connection);
    socket.on("close", () => connections.delete(connection));
  };
  server.on(options.tls ? "secureConnection" : "connection", onSocket);
  server.on("tlsClientError", (error: Error, socket: Socket) => log(`a TLS connection from ${socket.remoteAddress} closed: ${error.message}`));
  sessions.release(options.token, first);

  return {
    address,
    broker,
    get connections() {
      return connections.size;
    },
    stats,
    async stop(drainMs = gatewayDrainMs) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
      await Promise.race([Promise.all([...connections].map((connection) => connection.drain())), deadline]);
      clearTimeout(timer);
      for (const connection of connections) connection.destroy();
      await closed;
    },
  };
}
