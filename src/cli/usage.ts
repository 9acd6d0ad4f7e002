/** `tributary --help`: every command and option on one screen (docs/cli.md has the details). */
export const usage = `tributary — Tributary's command-line tool (docs/cli.md)

usage: tributary [--url URL] [--token TOKEN] [--json] <command>
       tributary --version | --help

  topics list
  topics create <topic> [--partitions N] [--replication-factor N] [--config name=value]...
  topics describe <topic>
  topics alter <topic> [--config name=value]... [--delete-config name]... [--partitions N]
  topics delete <topic>
  topics delete-records <topic> --partition N --offset M
      the records before offset M go (-1: every committed record); the partition's log start moves there
  topics write-token <topic> [--ttl DURATION] [--quiet]
      a short-lived token that may only produce to the topic (for a web page)
  topics read-token <topic> [--ttl DURATION] [--quiet]
      a short-lived token that may only read the topic (a page's ?access_token= on a stream)

  produce <topic> [--file PATH] [--key-separator SEP] [--partition N] [--acks 0|1|all]
                  [--linger-ms N] [--batch-bytes N] [--compression none|gzip|snappy|lz4|zstd] [--quiet]
      one record per line of stdin (or --file); a progress line on a terminal, a summary at the end;
      stopped early (a bad line, a refused request, Ctrl-C), it says what was acknowledged and
      the line to resume from

  consume <topic> (--group G | --partition N [--offset N|earliest|latest] | --follow)
                  [--from-beginning] [--follow] [--max N] [--json] [--base64] [--wait-ms N]
                  [--transport poll|websocket] [--isolation read_committed|read_uncommitted]
      values, one per line; --json: JSON lines with key, headers, partition, offset, timestamp;
      --follow without --group streams (a partition, or with neither option every partition);
      a group member polls, or with --transport websocket --follow reads its partitions' WebSockets;
      read_committed (the default) shows committed transactions' records only

  groups list
  groups describe <group>
  groups lag <group>
  groups reset <group> --topic T --to earliest|latest|<offset>|@<timestamp ms> [--partitions 0,2] [--execute]
      shows the new offsets; --execute writes them (the group must have no members)
  groups delete-offsets <group> --topic T [--partitions 0,2]
      deletes the group's committed offsets of the topic's partitions (refused while members subscribe to it)
  groups delete <group>

  transactions list
  transactions describe <transactional-id>
  transactions abort <transactional-id>
      aborts the id's open transaction (a hanging one; takes alter on the cluster)
  transactions describe-producers --topic T --partition N
      the partition's active producers: id, epoch, last sequence, the first offset of an open transaction

  share consume <group> --topic T[,T2...] [--max N] [--follow] [--ack accept|release|reject]
                [--json] [--base64] [--wait-ms N]
      a share group's records (any number of consumers share its partitions), printed as consume
      prints them; each acknowledged (--ack, default accept) once printed, the rest released
  share-groups list
  share-groups describe <group>
  share-groups alter <group> [--config name=value]... [--delete-config name]...
  share-groups reset <group> --topic T --to earliest|latest|<offset>|@<timestamp ms> [--partitions 0,2] [--execute]
      shows the new start offsets; --execute moves them (no record of the group may be acquired)
  share-groups delete <group>

  tokens create --rule RESOURCE:NAME:literal|prefixed:OPERATION,... [--rule ...]...
                [--name N] [--expires-in DURATION] [--produce-bytes-per-second N]
                [--fetch-bytes-per-second N] [--requests-per-second N] [--quiet]
      e.g. --rule topic:orders:literal:read,write --rule group:app-:prefixed:read;
      prints the token's secret once (--quiet: only the secret)
  tokens list
  tokens revoke <id>

  subscriptions create <name> --topic T (--webhook URL [--secret S] | --service BINDING)
                [--mode ordered|shared] [--from latest|earliest] [--batch-size N] [--max-wait DURATION]
                [--max-in-flight N] [--retry-delay DURATION] [--delivery-limit N] [--dead-letter-topic T]
                [--isolation read_committed|read_uncommitted]
      pushes the topic's records to a webhook (its origin in the Worker's SUBSCRIPTION_ORIGINS)
      or to a Worker bound in the deployment, whose deliver(batch) is called
  subscriptions list
  subscriptions describe <name>
  subscriptions pause <name>
  subscriptions resume <name>
  subscriptions delete <name>

  serve --data DIR [--port N] [--host H] [--admin-token T]
      Tributary on this machine (workerd through Miniflare, Node >= 20.18.1), state under DIR;
      port 8787 and host 127.0.0.1 by default, admin token also from TRIBUTARY_ADMIN_TOKEN

  gateway [--listen HOST:PORT] [--advertise HOST:PORT] [--tls-cert FILE --tls-key FILE]
          [--auto-create-topics] [--max-connections N] [--metrics HOST:PORT] [--max-reauth DURATION]
      Kafka's wire protocol for --url (kcat, kafkajs, librdkafka clients; docs/gateway.md);
      listens on 127.0.0.1:9092 by default; clients authenticate with SASL PLAIN or OAUTHBEARER
      (a token), or SCRAM-SHA-256/512 (a scoped token's id and the token); --metrics serves the
      gateway's counters at http://HOST:PORT/metrics (Prometheus)

options:
  --url     the Worker's URL (env TRIBUTARY_URL, default http://127.0.0.1:8787)
  --token   bearer token (env TRIBUTARY_TOKEN)
  --json    JSON output instead of tables
durations: 500ms, 30s, 10m, 1h, 7d
exit codes: 0 ok (also a consume stopped by Ctrl-C, and output into a closed pipe), 1 the request
failed (code and message on stderr), 2 bad usage, 130 a produce stopped by Ctrl-C
`;
