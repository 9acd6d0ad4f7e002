"""Reads COUNT records of partition 0 of TOPIC from the start with confluent-kafka; prints
{"values": [...]}.

    python consume_values.py BOOTSTRAP TOPIC COUNT
"""
import json
import sys

from confluent_kafka import Consumer, TopicPartition

bootstrap, topic, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"py-{topic}", "enable.auto.commit": False})
consumer.assign([TopicPartition(topic, 0, 0)])
values = []
for _ in range(200):
    if len(values) >= count:
        break
    message = consumer.poll(0.5)
    if message is None or message.error():
        continue
    values.append(message.value().decode())
consumer.close()
print(json.dumps({"values": values}))
