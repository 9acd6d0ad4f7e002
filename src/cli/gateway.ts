/**
 * `tributary gateway --listen HOST:PORT [--advertise HOST:PORT] [--tls-cert F --tls-key F]
 * [--auto-create-topics] [--max-connections N] [--metrics HOST:PORT] [--max-reauth DURATION]`:
 * Kafka's wire protocol in front of the deployment at --url (docs/gateway.md). One line when it
 * listens (and one for its metrics), one per client connection closed for an error (stderr);
 * SIGINT/SIGTERM stop accepting, answer in-flight requests for up to 10 s, and exit 0.
 */
import { readFileSync } from "node:fs";
import { gatewayConnectionsMax, gatewayDrainMs, scramSessionTtlMsMax, scramSessionTtlMsMin } from "../limits.ts";
import { defaultUrl, durationValue, formatDuration, integerValue, stringValue, UsageError, type OptionName } from "./args.ts";
import type { CommandContext } from "./context.ts";

export const gatewayOptions: OptionName[] = ["listen", "advertise", "tls-cert", "tls-key", "auto-create-topics", "max-connections", "metrics", "max-reauth"];

const stopSignals = ["SIGINT", "SIGTERM"] as const;

function hostPort(text: string, option: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(text);
  const port = match === null ? Number.NaN : Number(match[3]);
  if (match === null || !Number.isSafeInteger(port) || port > 65_535) throw new UsageError(`--${option} takes HOST:PORT, got ${JSON.stringify(text)}`);
  return { host: match[1] ?? match[2]!, port };
}

export async function gatewayCommand(context: CommandContext): Promise<void> {
  const { values, io } = context;
  const listenText = stringValue(values, "listen") ?? "127.0.0.1:9092";
  const listen = hostPort(listenText, "listen");
  const advertiseText = stringValue(values, "advertise");
  const advertise = advertiseText === undefined ? undefined : hostPort(advertiseText, "advertise");
  const certPath = stringValue(values, "tls-cert");
  const keyPath = stringValue(values, "tls-key");
  if ((certPath === undefined) !== (keyPath === undefined)) throw new UsageError("--tls-cert and --tls-key come together");
  const maxConnections = integerValue(values, "max-connections", 1) ?? gatewayConnectionsMax;
  // Kafka's connections.max.reauth.ms; SCRAM sessions are the deployment's session tokens, which live at most a day.
  const maxReauthMs = durationValue(values, "max-reauth", { ms: scramSessionTtlMsMax, why: "a SCRAM session token's longest life" });
  if (maxReauthMs !== undefined && maxReauthMs < scramSessionTtlMsMin) throw new UsageError(`--max-reauth is at least ${formatDuration(scramSessionTtlMsMin)}, got ${JSON.stringify(values["max-reauth"])}`);
  const url = stringValue(values, "url") ?? io.env.TRIBUTARY_URL ?? defaultUrl;
  const token = stringValue(values, "token") ?? io.env.TRIBUTARY_TOKEN;
  const tls = certPath === undefined ? undefined : { cert: readFileSync(certPath), key: readFileSync(keyPath!) };
  const metricsText = stringValue(values, "metrics");
  const metricsAt = metricsText === undefined ? undefined : hostPort(metricsText, "metrics");

  const stopSignal = new Promise<NodeJS.Signals>((resolve) => {
    for (const name of stopSignals) process.once(name, () => resolve(name));
  });
  const { startGateway } = await import("../gateway/server.ts");
  const gateway = await startGateway({
    url,
    listen,
    advertise,
    token: token === "" ? undefined : token,
    tls,
    autoCreateTopics: values["auto-create-topics"] === true,
    maxConnections,
    maxReauthMs,
    log: (line) => io.stderr.write(`${line}\n`),
  });
  const shown = `${gateway.address.host}:${gateway.address.port}`;
  const advertised = `${gateway.broker.host}:${gateway.broker.port}`;
  const metrics = metricsAt === undefined ? undefined : await (await import("../gateway/metrics-listener.ts")).serveGatewayMetrics(gateway, metricsAt);
  if (metrics !== undefined) io.stdout.write(`Gateway metrics on http://${metrics.address.host}:${metrics.address.port}/metrics\n`);
  io.stdout.write(`Kafka gateway on ${tls ? "TLS " : ""}${shown}${advertised === shown ? "" : ` (advertised as ${advertised})`} for ${url}\n`);
  const signal = await stopSignal;
  io.stdout.write(`${signal}: stopping (in-flight requests get ${gatewayDrainMs / 1000} s)\n`);
  await gateway.stop();
  await metrics?.close();
}
