package tributary.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A leader failover under a running Java consumer (issue 29): the partition's leader replica is
 * taken down (fault injection, the deployment's TRIBUTARY_FAULTS=1), the controller elects an
 * in-sync follower with a new leader epoch, and the consumer reads on: every offset once,
 * nothing skipped, the records written after the failover under the higher epoch. The gateway
 * reports Tributary's own leader epochs (Metadata, OffsetForLeaderEpoch): after the failover a
 * position read under the old epoch is validated against where that epoch ended on the new
 * leader, so a position past it is a truncation at exactly that offset (KIP-320).
 */
@Timeout(120)
class FailoverTest {
  private static final Pattern leader = Pattern.compile("\"leader\"\\s*:\\s*\"([^\"]+)\"");

  private static String leaderOf(String topic) throws Exception {
    Matcher match = leader.matcher(Gateway.get("/v1/topics/" + topic));
    assertTrue(match.find(), "the topic's description names its leader");
    return match.group(1);
  }

  private static void produce(KafkaProducer<String, String> producer, String topic, int from, int to) throws Exception {
    for (int index = from; index < to; index++) producer.send(new ProducerRecord<>(topic, 0, null, "r" + index));
    producer.flush();
  }

  @Test
  void aConsumerReadsOnThroughALeaderChangeWithNothingSkipped() throws Exception {
    String topic = Gateway.unique("failover");
    try (Admin admin = Gateway.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3).configs(Map.of("min.insync.replicas", "2")))).all().get();
    }
    String before = leaderOf(topic);
    Properties producerConfig = new Properties();
    producerConfig.put("bootstrap.servers", Gateway.bootstrap());
    producerConfig.put("key.serializer", StringSerializer.class.getName());
    producerConfig.put("value.serializer", StringSerializer.class.getName());
    Properties consumerConfig = new Properties();
    consumerConfig.put("bootstrap.servers", Gateway.bootstrap());
    consumerConfig.put("key.deserializer", StringDeserializer.class.getName());
    consumerConfig.put("value.deserializer", StringDeserializer.class.getName());
    consumerConfig.put("auto.offset.reset", "none");
    consumerConfig.put("max.poll.records", "20");
    TopicPartition partition = new TopicPartition(topic, 0);
    Map<Long, String> read = new TreeMap<>();
    Map<Long, Integer> epochs = new TreeMap<>();
    int reads = 0;
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig);
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
      produce(producer, topic, 0, 100);
      consumer.assign(List.of(partition));
      consumer.seek(partition, 0);
      long deadline = System.currentTimeMillis() + 30_000;
      while (read.size() < 50 && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
          read.put(record.offset(), record.value());
          epochs.put(record.offset(), record.leaderEpoch().orElse(-1));
          reads++;
        }
      }
      assertTrue(read.size() >= 50, "read " + read.size() + " records before the failover");
      assertEquals(204, Gateway.post("/v1/faults", "{\"topic\":\"" + topic + "\",\"partition\":0,\"replica\":\"" + before + "\",\"fault\":\"down\"}"));
      try {
        // The producer's writes meet the down leader first: they are what makes the router
        // report it and the controller elect another; the producer retries at the new leader.
        produce(producer, topic, 100, 200);
        deadline = System.currentTimeMillis() + 60_000;
        while (read.size() < 200 && System.currentTimeMillis() < deadline) {
          for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
            read.put(record.offset(), record.value());
            epochs.put(record.offset(), record.leaderEpoch().orElse(-1));
            reads++;
          }
        }
      } finally {
        Gateway.post("/v1/faults", "{\"topic\":\"" + topic + "\",\"partition\":0,\"replica\":\"" + before + "\",\"fault\":\"none\"}");
      }
      // KIP-320 on Tributary's epochs: the old epoch ended where the new one's first record is, so a
      // position at the log's end read under the old epoch is a truncation back to that offset.
      long firstOfNewEpoch = epochs.entrySet().stream().filter((entry) -> entry.getValue() > epochs.get(0L)).mapToLong(Map.Entry::getKey).min().orElse(-1);
      assertTrue(firstOfNewEpoch > 0, "records were written under the new epoch");
      consumer.seek(partition, new OffsetAndMetadata(200, Optional.of(epochs.get(0L)), ""));
      LogTruncationException truncated = assertThrows(LogTruncationException.class, () -> {
        long until = System.currentTimeMillis() + 30_000;
        while (System.currentTimeMillis() < until) consumer.poll(Duration.ofMillis(200));
      });
      assertEquals(firstOfNewEpoch, truncated.divergentOffsets().get(partition).offset(), "the old epoch's end on the new leader");
    }
    assertNotEquals(before, leaderOf(topic), "another replica leads");
    // Every offset 0..199 once, holding the record written there (the idempotent producer wrote each once).
    assertEquals(200, read.size());
    for (long offset = 0; offset < 200; offset++) assertEquals("r" + offset, read.get(offset), "offset " + offset);
    // A position the consumer held was never read again: assigned and seeked once, it moved only forward.
    assertEquals(200, reads);
    assertTrue(epochs.get(199L) > epochs.get(0L), "the records after the failover carry the new leader epoch: " + epochs.get(0L) + " then " + epochs.get(199L));
  }
}
