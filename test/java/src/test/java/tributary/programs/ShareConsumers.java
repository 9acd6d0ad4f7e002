package tributary.programs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.AcknowledgeType;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Two KafkaShareConsumer members (KIP-932, explicit acknowledgement) of one share group through
 * the gateway, beside the test's HTTP share consumer: each accepts the records it gets and rejects
 * those whose value ends in "7", printing one JSON line per acknowledgement
 * ({"event":"ack","consumer","type","value","deliveryCount"}); they stop once the file named by
 * the last argument exists (the test makes it when every record is done), each closing its session.
 *
 * usage: ShareConsumers <bootstrap> <topic> <group> <stop file>
 */
public class ShareConsumers {
  public static void main(String[] args) throws Exception {
    Path stop = Path.of(args[3]);
    List<Thread> threads = new ArrayList<>();
    for (String name : List.of("java-1", "java-2")) {
      Thread thread = new Thread(() -> consume(name, args[0], args[1], args[2], stop));
      thread.start();
      threads.add(thread);
    }
    for (Thread thread : threads) thread.join();
  }

  static void consume(String name, String bootstrap, String topic, String group, Path stop) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    properties.put("group.id", group);
    properties.put("client.id", name);
    properties.put("key.deserializer", StringDeserializer.class.getName());
    properties.put("value.deserializer", StringDeserializer.class.getName());
    properties.put("share.acknowledgement.mode", "explicit");
    // Small fetches, so that the HTTP consumer beside them gets records too.
    properties.put("max.poll.records", "10");
    long deadline = System.currentTimeMillis() + 60_000;
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(properties)) {
      consumer.subscribe(List.of(topic));
      while (!Files.exists(stop) && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          AcknowledgeType type = record.value().endsWith("7") ? AcknowledgeType.REJECT : AcknowledgeType.ACCEPT;
          consumer.acknowledge(record, type);
          System.out.printf("{\"event\":\"ack\",\"consumer\":\"%s\",\"type\":\"%s\",\"value\":\"%s\",\"deliveryCount\":%d}%n", name, type.name(), record.value(), record.deliveryCount().orElse((short) -1));
        }
        consumer.commitSync();
      }
    } catch (Exception error) {
      System.out.printf("{\"event\":\"error\",\"consumer\":\"%s\",\"error\":\"%s\"}%n", name, error.toString().replace("\"", "'"));
    }
  }
}
