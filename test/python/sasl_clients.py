"""confluent-kafka (librdkafka 2.16) authenticating with SASL through the gateway, then producing
and consuming:

    python sasl_clients.py BOOTSTRAP MECHANISM USERNAME SECRET TOPIC RECORDS PAUSE_MS

MECHANISM is SCRAM-SHA-256 or SCRAM-SHA-512 (USERNAME and SECRET: a scoped token's id and the
token) or OAUTHBEARER (SECRET: the bearer, handed over by the oauth_cb token callback, as an
application gets its token; USERNAME unused). The producer sends RECORDS records to partition 0
of TOPIC one at a time, PAUSE_MS apart (so that a connection lives across a short SASL session),
then a consumer reads them back from the start. Prints one JSON line:
    {"acked": N, "consumed": N, "error": null}   or   {"acked": 0, "consumed": 0, "error": "the first error"}
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition, OFFSET_BEGINNING

bootstrap, mechanism, username, secret, topic = sys.argv[1:6]
records, pause_ms = int(sys.argv[6]), int(sys.argv[7])
errors = []

common = {
    "bootstrap.servers": bootstrap,
    "security.protocol": "SASL_PLAINTEXT",
    "sasl.mechanisms": mechanism,
    "error_cb": lambda error: errors.append(str(error)),
}
if mechanism == "OAUTHBEARER":
    common["oauth_cb"] = lambda _config: (secret, time.time() + 3600, "tributary", {})
else:
    common["sasl.username"] = username
    common["sasl.password"] = secret

acked = 0
consumed = 0


def delivered(error, _message):
    global acked
    if error is None:
        acked += 1
    else:
        errors.append(str(error))


producer = Producer({**common, "message.timeout.ms": 8000, "linger.ms": 0})
for n in range(records):
    producer.produce(topic, value=f"record-{n}".encode(), partition=0, on_delivery=delivered)
    producer.flush(10)
    if acked <= n:
        break
    if n + 1 < records:
        time.sleep(pause_ms / 1000)

if acked == records:
    consumer = Consumer({**common, "group.id": "sasl-clients", "enable.auto.commit": False})
    consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
    deadline = time.time() + 30
    while consumed < records and time.time() < deadline:
        message = consumer.poll(0.5)
        if message is not None and message.error() is None:
            consumed += 1
    consumer.close()

print(json.dumps({"acked": acked, "consumed": consumed, "error": None if acked == records else (errors[0] if errors else "nothing acknowledged")}))
