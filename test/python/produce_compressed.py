"""Produces COUNT records (key k<i>, value v<i>) with confluent-kafka's compression.type CODEC;
prints {"delivered": n, "errors": [...], "librdkafka": version}.

    python produce_compressed.py BOOTSTRAP TOPIC CODEC COUNT
"""
import json
import sys

from confluent_kafka import Producer, libversion

bootstrap, topic, codec, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
producer = Producer({"bootstrap.servers": bootstrap, "compression.type": codec, "linger.ms": 50})
delivered = []
errors = []


def report(error, message):
    if error is not None:
        errors.append(str(error))
    else:
        delivered.append(message.offset())


for i in range(count):
    producer.produce(topic, key=f"k{i}", value=f"{codec} record {i} " + "payload " * 8, partition=0, on_delivery=report)
producer.flush(30)
print(json.dumps({"delivered": len(delivered), "errors": errors, "librdkafka": libversion()[0]}))
