"""A transactional producer through the gateway (issue 28), then a read_committed consumer.

    python transactions_produce_read.py BOOTSTRAP TOPIC TRANSACTIONAL_ID

The producer commits py-c1 (partition 0) and py-c2 (partition 1), aborts py-x1 and py-x2, and
commits py-c3 — three transactions with one init (librdkafka keeps its epoch after each end).
Then a consumer with isolation.level=read_committed (librdkafka's default) reads both
partitions from the start to their end. Prints {"values": [...], "error": null} (or the error).
"""
import json
import sys

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

bootstrap, topic, transactional_id = sys.argv[1], sys.argv[2], sys.argv[3]


def transaction(producer, records, commit):
    producer.begin_transaction()
    for value, partition in records:
        producer.produce(topic, value=value.encode(), partition=partition)
    producer.flush(30)
    if commit:
        producer.commit_transaction(30)
    else:
        producer.abort_transaction(30)


error = None
values = []
try:
    producer = Producer({"bootstrap.servers": bootstrap, "transactional.id": transactional_id, "transaction.timeout.ms": 30000})
    producer.init_transactions(30)
    transaction(producer, [("py-c1", 0), ("py-c2", 1)], True)
    transaction(producer, [("py-x1", 0), ("py-x2", 1)], False)
    transaction(producer, [("py-c3", 0)], True)
    consumer = Consumer({
        "bootstrap.servers": bootstrap,
        "group.id": f"py-{topic}",
        "enable.auto.commit": False,
        "enable.partition.eof": True,
        "isolation.level": "read_committed",
    })
    consumer.assign([TopicPartition(topic, 0, 0), TopicPartition(topic, 1, 0)])
    ended = set()
    for _ in range(200):
        if len(ended) == 2:
            break
        message = consumer.poll(0.5)
        if message is None:
            continue
        if message.error():
            if message.error().code() == KafkaError._PARTITION_EOF:
                ended.add(message.partition())
            continue
        values.append(message.value().decode())
    consumer.close()
except Exception as exception:  # reported to the test, which shows it
    error = f"{type(exception).__name__}: {exception}"
print(json.dumps({"values": sorted(values), "error": error}))
