package tributary.programs;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Checks of the Java client 4.4 against `tributary gateway` that need no group (issue 35):
 *
 *   java -cp 'classes:lib/*' tributary.programs.GatewayBasics consume BOOTSTRAP TOPIC PARTITIONS RECORDS
 *     reads RECORDS records from offset 0 of partitions 0..PARTITIONS-1 (assigned, no group),
 *     prints {"read":N}; the client's warnings go to stderr (an invalid fetch answer is one)
 *   java -cp 'classes:lib/*' tributary.programs.GatewayBasics topics BOOTSTRAP NEW_TOPIC
 *     the Admin client's topic listing with internal topics, then CreateTopics of NEW_TOPIC:
 *     prints {"topics":{"<name>":<internal>,…},"created":"<error or ok>"}
 *
 * Its other checks are the JUnit project's (src/test/java/tributary/gateway/GatewayBasicsTest.java).
 */
public class GatewayBasics {
  public static void main(String[] args) {
    switch (args[0]) {
      case "consume" -> consume(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "topics" -> topics(args[1], args[2]);
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  static void consume(String bootstrap, String topic, int partitions, int records) {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    int read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> assigned = new ArrayList<>();
      for (int p = 0; p < partitions; p++) assigned.add(new TopicPartition(topic, p));
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      long deadline = System.currentTimeMillis() + 60_000;
      while (read < records && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> ignored : consumer.poll(Duration.ofMillis(500))) read++;
      }
    }
    System.out.println("{\"read\":" + read + "}");
  }

  static void topics(String bootstrap, String newTopic) {
    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    StringBuilder json = new StringBuilder("{\"topics\":{");
    String created;
    try (Admin admin = Admin.create(config)) {
      boolean first = true;
      for (TopicListing listing : admin.listTopics(new ListTopicsOptions().listInternal(true)).listings().get()) {
        json.append(first ? "" : ",").append('"').append(listing.name()).append("\":").append(listing.isInternal());
        first = false;
      }
      try {
        admin.createTopics(List.of(new NewTopic(newTopic, 1, (short) 1))).all().get();
        created = "ok";
      } catch (Exception e) {
        created = e.getCause() == null ? e.toString() : e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage();
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    json.append("},\"created\":\"").append(created.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"}");
    System.out.println(json);
  }
}
