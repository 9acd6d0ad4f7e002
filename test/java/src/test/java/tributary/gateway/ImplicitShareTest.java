package tributary.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * `KafkaShareConsumer` in implicit acknowledgement mode (KIP-932's default, beside the explicit
 * mode of test/java/ShareConsumers.java): each poll accepts the records of the poll before it,
 * and commitSync the last ones; every record is delivered once, and a member joining afterwards
 * gets none of them again.
 */
@Timeout(90)
class ImplicitShareTest {
  private static KafkaShareConsumer<String, String> member(String group, String clientId) {
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("group.id", group);
    config.put("client.id", clientId);
    config.put("key.deserializer", StringDeserializer.class.getName());
    config.put("value.deserializer", StringDeserializer.class.getName());
    config.put("share.acknowledgement.mode", "implicit");
    config.put("max.poll.records", "10");
    return new KafkaShareConsumer<>(config);
  }

  @Test
  void implicitAcknowledgementAcceptsEachRecordOnce() throws Exception {
    String topic = Gateway.unique("implicit");
    String group = Gateway.unique("implicit-share");
    try (Admin admin = Gateway.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
      // A share group starts at the latest offset unless told otherwise (share.auto.offset.reset).
      admin.incrementalAlterConfigs(java.util.Map.of(
          new org.apache.kafka.common.config.ConfigResource(org.apache.kafka.common.config.ConfigResource.Type.GROUP, group),
          List.of(new org.apache.kafka.clients.admin.AlterConfigOp(new org.apache.kafka.clients.admin.ConfigEntry("share.auto.offset.reset", "earliest"), org.apache.kafka.clients.admin.AlterConfigOp.OpType.SET)))).all().get();
    }
    Properties producerConfig = new Properties();
    producerConfig.put("bootstrap.servers", Gateway.bootstrap());
    producerConfig.put("key.serializer", StringSerializer.class.getName());
    producerConfig.put("value.serializer", StringSerializer.class.getName());
    int records = 60;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
      for (int index = 0; index < records; index++) producer.send(new ProducerRecord<>(topic, index % 2, null, "s" + index));
      producer.flush();
    }
    TreeMap<String, Integer> deliveries = new TreeMap<>();
    try (KafkaShareConsumer<String, String> consumer = member(group, "implicit-1")) {
      consumer.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + 45_000;
      while (deliveries.size() < records && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          deliveries.merge(record.value(), 1, Integer::sum);
          assertEquals(1, (int) record.deliveryCount().orElse((short) -1), record.value() + "'s delivery count");
        }
      }
      consumer.commitSync();
    }
    assertEquals(records, deliveries.size());
    assertEquals(records, deliveries.values().stream().mapToInt(Integer::intValue).sum(), "each record once: " + deliveries);
    // Accepted records are done: a new member of the group is handed none of them.
    try (KafkaShareConsumer<String, String> late = member(group, "implicit-2")) {
      late.subscribe(List.of(topic));
      int again = 0;
      for (int poll = 0; poll < 10; poll++) again += late.poll(Duration.ofMillis(200)).count();
      assertEquals(0, again);
    }
  }
}
