"""Confluent's Python JSONSerializer and JSONDeserializer (its `json` extra) against Tributary's
/registry, with a schema that references another.

Usage: schema_registry_json.py <registry url> <subject prefix> <bearer token> <gateway bootstrap>

Registers an address schema, then serializes a customer whose schema names it as a reference
(`"$ref": "address.json"`, the reference's name): the serializer registers the customer schema
with its reference (auto.register.schemas), resolves the reference through the registry and
validates each record against both; the deserializer (a fresh client) fetches the writer's
schema and its reference by id. Then it produces through `tributary gateway` to the topic
<subject prefix> (created with tributary.value.schema.validation=full by the test): the
serializer's record, and one in the wire format with the registered id whose address breaks
the referenced schema (built by hand, as a serializer with validation off would write it).
Prints one JSON object of what each step answered, for test/e2e/schema-registry-clients.test.ts.
"""
import json
import sys

from confluent_kafka import Producer
from delivery_reports import delivered
from confluent_kafka.schema_registry import Schema, SchemaReference, SchemaRegistryClient
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.serialization import MessageField, SerializationContext, SerializationError

url, prefix, token, bootstrap = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
topic = prefix
config = {"url": url, "bearer.auth.credentials.source": "STATIC_TOKEN", "bearer.auth.token": token, "bearer.auth.logical.cluster": "tributary"}
client = SchemaRegistryClient(config)

address = {
    "type": "object",
    "properties": {"street": {"type": "string"}, "zip": {"type": "string", "pattern": "^[0-9]{5}$"}},
    "required": ["street", "zip"],
}
customer = {
    "type": "object",
    "properties": {"name": {"type": "string"}, "address": {"$ref": "address.json"}},
    "required": ["name", "address"],
}

out = {}
address_subject = f"{prefix}-address"
out["address_id"] = client.register_schema(address_subject, Schema(json.dumps(address), "JSON"))
references = [SchemaReference("address.json", address_subject, 1)]
context = SerializationContext(topic, MessageField.VALUE)
serializer = JSONSerializer(Schema(json.dumps(customer), "JSON", references), client, conf={"auto.register.schemas": True})
good = {"name": "Ada", "address": {"street": "Main St", "zip": "12345"}}
payload = serializer(good, context)
out["magic"] = payload[0]
out["wire_id"] = int.from_bytes(payload[1:5], "big")
registered = client.get_latest_version(f"{prefix}-value")
out["registered"] = {"id": registered.schema_id, "references": [{"name": r.name, "subject": r.subject, "version": r.version} for r in registered.schema.references]}
out["referenced_by"] = client.get_referenced_by(address_subject, 1)
try:
    serializer({"name": "Ada", "address": {"street": "Main St", "zip": "12"}}, context)
    out["serializer_refused"] = None
except SerializationError as error:
    out["serializer_refused"] = "zip" in str(error) or "12" in str(error)
out["decoded"] = JSONDeserializer(None, schema_registry_client=SchemaRegistryClient(config))(payload, context)

producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0, "retries": 0})
deliveries = {}
producer.produce(topic, payload, on_delivery=delivered(deliveries, "serialized"))
producer.flush(20)
# The registered id, data that breaks the referenced schema (its zip): full validation refuses it at the edge.
bad = payload[:5] + json.dumps({"name": "Bob", "address": {"street": "Elm St", "zip": "1"}}).encode()
producer.produce(topic, bad, on_delivery=delivered(deliveries, "breaks_reference"))
producer.flush(20)
out["gateway"] = deliveries
print(json.dumps(out))
