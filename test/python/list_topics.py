"""Lists the topics through a Kafka bootstrap address with confluent-kafka (librdkafka >= 2.3
asks for all topics with Metadata v12): prints {"topics": {name: {"partitions": n, "error": str|null}}}.

    python list_topics.py BOOTSTRAP
"""
import json
import sys

from confluent_kafka.admin import AdminClient

admin = AdminClient({"bootstrap.servers": sys.argv[1]})
metadata = admin.list_topics(timeout=20)
print(json.dumps({"topics": {name: {"partitions": len(topic.partitions), "error": str(topic.error) if topic.error else None} for name, topic in metadata.topics.items()}}))
