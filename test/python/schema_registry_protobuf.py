"""Confluent's Python ProtobufSerializer and ProtobufDeserializer (its `protobuf` extra) against
Tributary's /registry.

Usage: schema_registry_protobuf.py <registry url> <subject prefix> <bearer token> <gateway bootstrap>

The message classes are built at run time from FileDescriptorProtos (no protoc): a file
<prefix>/address.proto with an Address, and <prefix>/order.proto importing it and Google's
timestamp.proto, whose second message is the Order written (so its message indexes are [1]).
The serializer registers <prefix>/address.proto under its own subject as a reference
(Google's well-known file is skipped, as Confluent's serializers skip it: the registry knows
it), then the order file with that reference, each given as the base64 FileDescriptorProto the
Python serializer sends; the deserializer (a fresh client) reads the record back. Then it
produces through `tributary gateway` to the topic <prefix> (created with
tributary.value.schema.validation=full by the test): the serializer's record, and one with the
registered id and message indexes whose message bytes are cut short. Prints one JSON object of
what each step answered, for test/e2e/schema-registry-clients.test.ts.
"""
import json
import sys

from confluent_kafka import Producer
from delivery_reports import delivered
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory, timestamp_pb2

url, prefix, token, bootstrap = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
topic = prefix
config = {"url": url, "bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.token": token, "bearer.auth.logical.cluster": "tributary"}
client = SchemaRegistryClient(config)
Field = descriptor_pb2.FieldDescriptorProto

pool = descriptor_pool.DescriptorPool()
timestamp_file = descriptor_pb2.FileDescriptorProto()
timestamp_pb2.DESCRIPTOR.CopyToProto(timestamp_file)
pool.Add(timestamp_file)

address_file = descriptor_pb2.FileDescriptorProto(name=f"{prefix}/address.proto", package="shop", syntax="proto3")
address = address_file.message_type.add(name="Address")
address.field.add(name="street", number=1, type=Field.TYPE_STRING, label=Field.LABEL_OPTIONAL)
address.field.add(name="zip", number=2, type=Field.TYPE_STRING, label=Field.LABEL_OPTIONAL)
pool.Add(address_file)

order_file = descriptor_pb2.FileDescriptorProto(
    name=f"{prefix}/order.proto", package="shop", syntax="proto3", dependency=[address_file.name, "google/protobuf/timestamp.proto"]
)
note = order_file.message_type.add(name="Note")
note.field.add(name="text", number=1, type=Field.TYPE_STRING, label=Field.LABEL_OPTIONAL)
order = order_file.message_type.add(name="Order")
order.field.add(name="id", number=1, type=Field.TYPE_INT64, label=Field.LABEL_OPTIONAL)
order.field.add(name="item", number=2, type=Field.TYPE_STRING, label=Field.LABEL_OPTIONAL)
order.field.add(name="address", number=3, type=Field.TYPE_MESSAGE, type_name=".shop.Address", label=Field.LABEL_OPTIONAL)
order.field.add(name="placed", number=4, type=Field.TYPE_MESSAGE, type_name=".google.protobuf.Timestamp", label=Field.LABEL_OPTIONAL)
order.field.add(name="tags", number=5, type=Field.TYPE_STRING, label=Field.LABEL_REPEATED)
pool.Add(order_file)
Order = message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Order"))

out = {}
context = SerializationContext(topic, MessageField.VALUE)
serializer = ProtobufSerializer(Order, client, {"auto.register.schemas": True})
message = Order(id=7, item="tea", tags=["hot", "green"])
message.address.street = "Main St"
message.address.zip = "12345"
message.placed.seconds = 1_700_000_000
payload = serializer(message, context)
out["magic"] = payload[0]
out["wire_id"] = int.from_bytes(payload[1:5], "big")
out["indexes_byte"] = payload[5]  # zigzag varints: a count of 1 (2), then index 1 (2)
out["index_byte"] = payload[6]
registered = client.get_latest_version(f"{prefix}-value")
out["registered"] = {
    "id": registered.schema_id,
    "type": registered.schema.schema_type,
    "references": [{"name": r.name, "subject": r.subject, "version": r.version} for r in registered.schema.references],
}
out["address_subjects"] = [s for s in client.get_subjects() if s.startswith(prefix) and s.endswith("address.proto")]
out["referenced_by"] = client.get_referenced_by(f"{prefix}/address.proto", 1)
decoded = ProtobufDeserializer(Order, {}, SchemaRegistryClient(config))(payload, context)
out["decoded"] = {"id": decoded.id, "item": decoded.item, "street": decoded.address.street, "zip": decoded.address.zip, "placed": decoded.placed.seconds, "tags": list(decoded.tags)}

producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "retries": 0})
deliveries = {}
producer.produce(topic, payload, on_delivery=delivered(deliveries, "serialized"))
producer.flush(20)
# The registered id and indexes, the message cut inside its last field (a tag's string): full validation refuses it at the edge.
producer.produce(topic, payload[:-3], on_delivery=delivered(deliveries, "cut_short"))
producer.flush(20)
out["gateway"] = deliveries
print(json.dumps(out))
