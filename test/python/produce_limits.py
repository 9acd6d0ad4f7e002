"""Produces, with confluent-kafka (librdkafka 2.16), one record whose batch is larger than a
partition takes and one record with many headers, and prints how each delivery ended:

    python produce_limits.py BOOTSTRAP TOPIC VALUE_BYTES HEADERS

prints {"large": "<error name or null>", "headers": "<error name or null>"}
"""
import json
import sys

from confluent_kafka import Producer

bootstrap, topic, value_bytes, header_count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
# Raised client-side bounds, so the partition is the one to judge the large record.
producer = Producer({"bootstrap.servers": bootstrap, "message.max.bytes": 8_000_000, "compression.type": "none", "linger.ms": 0})
outcomes = {}


def delivered(name):
    def report(error, _message):
        outcomes[name] = None if error is None else error.name()
    return report


producer.produce(topic, b"x" * value_bytes, on_delivery=delivered("large"))
producer.flush(30)
producer.produce(topic, b"v", headers=[(f"h{i}", b"x") for i in range(header_count)], on_delivery=delivered("headers"))
producer.flush(30)
print(json.dumps(outcomes))
