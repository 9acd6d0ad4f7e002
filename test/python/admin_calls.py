"""The admin calls Kafka clients make, with confluent-kafka's AdminClient (librdkafka 2.16)
through a Kafka bootstrap address; prints one JSON object of what each call answered:

    python admin_calls.py BOOTSTRAP

- broker: DescribeConfigs of broker 0 (num.partitions, default.replication.factor, …)
- defaulted: CreateTopics with -1 partitions and replication factor, then its partition count
- assigned / misassigned: CreateTopics with an explicit replica assignment naming broker 0, and one naming broker 7
- appended / subtracted: cleanup.policy after IncrementalAlterConfigs APPEND compact, then SUBTRACT delete
- auto: the partition count of a topic a producer's first record auto-created
"""
import json
import sys

from confluent_kafka import Producer
from confluent_kafka.admin import (AdminClient, AlterConfigOpType, ConfigEntry, ConfigResource, NewTopic,
                                   ResourceType)

bootstrap = sys.argv[1]
admin = AdminClient({"bootstrap.servers": bootstrap})
out = {}


def error_of(future):
    try:
        future.result(timeout=20)
        return None
    except Exception as error:  # a KafkaException carrying a KafkaError
        kafka_error = error.args[0] if error.args else error
        name = kafka_error.name() if hasattr(kafka_error, "name") else type(error).__name__
        text = kafka_error.str() if hasattr(kafka_error, "str") else str(error)
        return f"{name}: {text}"


def partitions(topic):
    return len(admin.list_topics(topic=topic, timeout=20).topics[topic].partitions)


def cleanup_policy(topic):
    resource = ConfigResource(ResourceType.TOPIC, topic)
    return admin.describe_configs([resource])[resource].result(timeout=20)["cleanup.policy"].value


broker = ConfigResource(ResourceType.BROKER, "0")
configs = admin.describe_configs([broker])[broker].result(timeout=20)
out["broker"] = {name: configs[name].value for name in ["num.partitions", "default.replication.factor", "auto.create.topics.enable", "log.retention.ms"] if name in configs}

out["defaulted"] = error_of(admin.create_topics([NewTopic("defaulted")])["defaulted"]) or partitions("defaulted")
out["assigned"] = error_of(admin.create_topics([NewTopic("assigned", num_partitions=2, replica_assignment=[[0], [0]])])["assigned"]) or partitions("assigned")
out["misassigned"] = error_of(admin.create_topics([NewTopic("misassigned", num_partitions=1, replica_assignment=[[7]])])["misassigned"])

resource = ConfigResource(ResourceType.TOPIC, "defaulted", incremental_configs=[ConfigEntry("cleanup.policy", "compact", incremental_operation=AlterConfigOpType.APPEND)])
out["appended"] = error_of(admin.incremental_alter_configs([resource])[resource]) or cleanup_policy("defaulted")
resource = ConfigResource(ResourceType.TOPIC, "defaulted", incremental_configs=[ConfigEntry("cleanup.policy", "delete", incremental_operation=AlterConfigOpType.SUBTRACT)])
out["subtracted"] = error_of(admin.incremental_alter_configs([resource])[resource]) or cleanup_policy("defaulted")

producer = Producer({"bootstrap.servers": bootstrap})
producer.produce("auto-made", b"first")
producer.flush(20)
out["auto"] = partitions("auto-made")

print(json.dumps(out))
