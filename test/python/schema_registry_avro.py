"""Confluent's Python SchemaRegistryClient and Avro serializer against Tributary's /registry
(and a JSON schema registered and fetched by the client).

Usage: schema_registry_avro.py <registry url> <subject prefix> <bearer token> [<gateway bootstrap>]

Registers a schema through the client, serializes a record with AvroSerializer (Confluent's
wire format: magic byte 0, the schema id, Avro binary), deserializes it with AvroDeserializer
(which fetches the schema by id), evolves the schema compatibly and incompatibly, and prints
one JSON object of what each call answered, for test/e2e/schema-registry-python.test.ts.
With a gateway's address, it also produces the serialized record and a raw one through
`tributary gateway` to the topic <subject prefix> (created with confluent.value.schema.validation
and tributary.value.schema.validation=full on by the test), and a record naming the schema whose
data is cut short, and prints how each delivery ended.
"""
import json
import sys

from confluent_kafka import Producer
from delivery_reports import delivered
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.serialization import MessageField, SerializationContext

url, prefix, token = sys.argv[1], sys.argv[2], sys.argv[3]
bootstrap = sys.argv[4] if len(sys.argv) > 4 else None
subject = f"{prefix}-value"
topic = prefix
# The client's static bearer token; it also sends a logical cluster header, which Tributary ignores.
config = {
    "url": url,
    "bearer.auth.credentials.source": "STATIC_TOKEN",
    "bearer.auth.token": token,
    "bearer.auth.logical.cluster": "tributary",
}
client = SchemaRegistryClient(config)

v1 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "item", "type": "string"},
]})
v2 = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "item", "type": "string"},
    {"name": "quantity", "type": "int", "default": 1},
]})
v3_incompatible = json.dumps({"type": "record", "name": "Order", "namespace": "shop", "fields": [
    {"name": "id", "type": "long"},
    {"name": "item", "type": "string"},
    {"name": "price", "type": "double"},
]})

out = {}
context = SerializationContext(topic, MessageField.VALUE)
serializer = AvroSerializer(client, v1, conf={"auto.register.schemas": True})
payload = serializer({"id": 7, "item": "tea"}, context)
out["magic"] = payload[0]
out["wire_id"] = int.from_bytes(payload[1:5], "big")

# A fresh client, so the deserializer fetches the schema by id from the registry.
reader = AvroDeserializer(SchemaRegistryClient(config))
out["decoded"] = reader(payload, context)

if bootstrap is not None:
    # Schema id validation at the edge: the serializer's record is written, a raw one refused.
    producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "retries": 0})
    deliveries = {}
    producer.produce(topic, payload, on_delivery=delivered(deliveries, "serialized"))
    producer.flush(20)
    producer.produce(topic, b"raw bytes, no schema id", on_delivery=delivered(deliveries, "raw"))
    producer.flush(20)
    # Full validation (tributary.value.schema.validation=full): a registered id, data cut short.
    producer.produce(topic, payload[:-1], on_delivery=delivered(deliveries, "nonconforming"))
    producer.flush(20)
    out["gateway"] = deliveries

out["registered_id"] = client.register_schema(subject, Schema(v1, "AVRO"))
found = client.lookup_schema(subject, Schema(v1, "AVRO"))
out["lookup"] = {"id": found.schema_id, "version": found.version, "subject": found.subject}
out["compatible_v2"] = client.test_compatibility(subject, Schema(v2, "AVRO"))
out["compatible_v3"] = client.test_compatibility(subject, Schema(v3_incompatible, "AVRO"))
out["v2_id"] = client.register_schema(subject, Schema(v2, "AVRO"))
try:
    client.register_schema(subject, Schema(v3_incompatible, "AVRO"))
    out["v3_error"] = None
except SchemaRegistryError as error:
    out["v3_error"] = {"http": error.http_status_code, "code": error.error_code}
latest = client.get_latest_version(subject)
out["latest"] = {"version": latest.version, "id": latest.schema_id}
out["versions"] = client.get_versions(subject)
out["subjects_has"] = subject in client.get_subjects()
out["set_compatibility"] = client.set_compatibility(subject, "FULL")
out["get_compatibility"] = client.get_compatibility(subject)
try:
    client.get_schema(999999)
    out["missing_error"] = None
except SchemaRegistryError as error:
    out["missing_error"] = {"http": error.http_status_code, "code": error.error_code}
json_schema = json.dumps({"type": "object", "properties": {"id": {"type": "integer"}}})
json_id = client.register_schema(f"{prefix}-json", Schema(json_schema, "JSON"))
out["json_schema_type"] = SchemaRegistryClient(config).get_schema(json_id).schema_type
out["deleted"] = client.delete_subject(subject)
try:
    SchemaRegistryClient({"url": url}).get_subjects()
    out["anonymous_error"] = None
except SchemaRegistryError as error:
    out["anonymous_error"] = {"http": error.http_status_code, "code": error.error_code}
print(json.dumps(out))
