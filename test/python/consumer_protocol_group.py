"""Two confluent-kafka consumers with KIP-848's protocol (group.protocol=consumer) in GROUP on
TOPIC: both get partitions, "b" leaves, "a" gets all PARTITIONS and reads on until idle for 3 s,
and commits. Prints one
JSON line per event: {"consumer", "event": "assigned"|"revoked"|"record"|"committed"|"error",
"partitions"?, "partition"?, "offset"?}.

    python consumer_protocol_group.py BOOTSTRAP TOPIC GROUP PARTITIONS
"""
import json
import os
import sys
import time

from confluent_kafka import Consumer, KafkaException

bootstrap, topic, group, partitions = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def say(**event):
    print(json.dumps(event), flush=True)


def member(name):
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": group,
        "group.protocol": "consumer",
        "client.id": name,
        "enable.auto.commit": False,
        "auto.offset.reset": "earliest",
    })
    owned = set()

    def assigned(c, partitions):
        owned.update(p.partition for p in partitions)
        say(consumer=name, event="assigned", partitions=sorted(p.partition for p in partitions))

    def revoked(c, partitions):
        if partitions:
            try:
                c.commit(asynchronous=False)
            except KafkaException:
                pass  # nothing consumed yet
        owned.difference_update(p.partition for p in partitions)
        say(consumer=name, event="revoked", partitions=sorted(p.partition for p in partitions))

    consumer.subscribe([topic], on_assign=assigned, on_revoke=revoked)
    return consumer, owned


def poll(name, consumer):
    message = consumer.poll(0.1)
    if message is None:
        return False
    if message.error():
        say(consumer=name, event="error", error=str(message.error()))
        return False
    say(consumer=name, event="record", partition=message.partition(), offset=message.offset())
    consumer.commit(message=message, asynchronous=False)
    return True


def main():
    a, owned_a = member("a")
    b, owned_b = member("b")
    deadline = time.time() + 60
    read = {"a": 0, "b": 0}
    while not (owned_a and owned_b and read["a"] and read["b"]):
        if time.time() > deadline:
            raise TimeoutError("timed out waiting until a and b have partitions and read records")
        read["a"] += poll("a", a)
        read["b"] += poll("b", b)
    say(event="phase", phase="shared")

    b.close()
    say(event="phase", phase="left")
    deadline = time.time() + 60
    while len(owned_a) < partitions:
        if time.time() > deadline:
            raise TimeoutError("timed out waiting until a has every partition")
        poll("a", a)
    last = time.time()
    while time.time() - last < 3:
        if poll("a", a):
            last = time.time()
    for partition in a.committed([p for p in a.assignment()], timeout=10):
        say(consumer="a", event="committed", partition=partition.partition, offset=partition.offset)
    a.close()
    say(event="phase", phase="done")


try:
    main()
except Exception as error:  # noqa: BLE001 — any failure: say it and exit now, not when librdkafka's threads let go
    say(event="error", error=repr(error))
    sys.stdout.flush()
    os._exit(1)
