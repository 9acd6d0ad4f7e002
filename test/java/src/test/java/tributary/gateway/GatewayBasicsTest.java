package tributary.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * Checks of the Java client 4.4 against `tributary gateway` that need no group (issue 35): the
 * consumer's validation of its position with OffsetForLeaderEpoch (KIP-320), a transactional
 * producer's initTransactions() (FindCoordinator for a transactional id, InitProducerId with
 * it), and the Admin's describeProducers (DescribeProducers v0) of an open, then committed,
 * transaction.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class GatewayBasicsTest {
  private final String validated = Gateway.unique("validated");

  private static Properties producerConfig() {
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("key.serializer", StringSerializer.class.getName());
    config.put("value.serializer", StringSerializer.class.getName());
    config.put("max.block.ms", "20000");
    return config;
  }

  @BeforeAll
  void tenRecords() throws Exception {
    try (Admin admin = Gateway.admin()) {
      admin.createTopics(List.of(new NewTopic(validated, 1, (short) 1))).all().get();
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig())) {
      for (int index = 0; index < 10; index++) producer.send(new ProducerRecord<>(validated, 0, null, "v" + index));
      producer.flush();
    }
  }

  /** Seeks to `offset` read under leader `epoch` (validated with OffsetForLeaderEpoch) and reads to the end: the first offset read and how many. */
  private long[] validateAndRead(long offset, int epoch) {
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("auto.offset.reset", "none");
    config.put("key.deserializer", StringDeserializer.class.getName());
    config.put("value.deserializer", StringDeserializer.class.getName());
    TopicPartition partition = new TopicPartition(validated, 0);
    long first = -1;
    long read = 0;
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
      consumer.assign(List.of(partition));
      consumer.seek(partition, new OffsetAndMetadata(offset, Optional.of(epoch), ""));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      long deadline = System.currentTimeMillis() + 30_000;
      // A few polls at least: the validation runs in them, also for a position past the end.
      for (int polls = 0; (offset + read < end || polls < 4) && System.currentTimeMillis() < deadline; polls++) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          if (first < 0) first = record.offset();
          read++;
        }
      }
    }
    return new long[] {first, read};
  }

  @Test
  void aPositionWithinTheLogValidatesAndReadsOn() {
    long[] answer = validateAndRead(5, 0);
    assertEquals(5, answer[0]);
    assertEquals(5, answer[1]);
  }

  @Test
  void aPositionPastTheEndIsATruncationAtTheEnd() {
    // Kafka 4.4 answers the same; without OffsetForLeaderEpoch this would be an OffsetOutOfRangeException.
    LogTruncationException truncated = assertThrows(LogTruncationException.class, () -> validateAndRead(100, 0));
    assertEquals(10, truncated.divergentOffsets().get(new TopicPartition(validated, 0)).offset());
  }

  @Test
  void anEpochThePartitionNeverHadIsATruncationWithNoOffsetToGoBackTo() {
    // The partition has led only at epoch 0: Kafka 4.4 answers a later epoch undefined (-1, -1), and
    // a consumer without a reset policy reports a truncation it cannot place.
    LogTruncationException truncated = assertThrows(LogTruncationException.class, () -> validateAndRead(5, 7));
    assertFalse(truncated.divergentOffsets().containsKey(new TopicPartition(validated, 0)), truncated.getMessage());
  }

  @Test
  void aCommittedOffsetKeepsItsLeaderEpoch() throws Exception {
    // KIP-320: OffsetCommit v6+ carries the leader epoch of the record before the offset, and
    // OffsetFetch answers it, so a consumer resuming there validates its position first.
    String group = Gateway.unique("epochs");
    TopicPartition partition = new TopicPartition(validated, 0);
    try (Admin admin = Gateway.admin()) {
      admin.alterConsumerGroupOffsets(group, Map.of(partition, new OffsetAndMetadata(5, Optional.of(0), "m"))).all().get();
      OffsetAndMetadata committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(partition);
      assertEquals(5, committed.offset());
      assertEquals(Optional.of(0), committed.leaderEpoch());
      assertEquals("m", committed.metadata());
      admin.alterConsumerGroupOffsets(group, Map.of(partition, new OffsetAndMetadata(6))).all().get();
      assertEquals(Optional.empty(), admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().get(partition).leaderEpoch());
    }
  }

  @Test
  void aTransactionalProducerInitializes() {
    Properties config = producerConfig();
    config.put("transactional.id", Gateway.unique("gateway-basics"));
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      producer.initTransactions();
    }
  }

  @Test
  void describeProducersShowsAnOpenTransactionThenItsCommit() throws Exception {
    String topic = Gateway.unique("described-producers");
    TopicPartition partition = new TopicPartition(topic, 0);
    Properties config = producerConfig();
    config.put("transactional.id", Gateway.unique("gateway-basics-producers"));
    try (Admin admin = Gateway.admin(); KafkaProducer<String, String> producer = new KafkaProducer<>(config)) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      producer.initTransactions();
      producer.beginTransaction();
      long offset = producer.send(new ProducerRecord<>(topic, 0, null, "open")).get().offset();
      List<ProducerState> open = admin.describeProducers(List.of(partition)).partitionResult(partition).get().activeProducers();
      producer.commitTransaction();
      List<ProducerState> committed = admin.describeProducers(List.of(partition)).partitionResult(partition).get().activeProducers();
      assertEquals(1, open.size());
      assertEquals(0, open.get(0).lastSequence());
      assertEquals(-1, open.get(0).coordinatorEpoch().orElse(-1));
      assertEquals(offset, open.get(0).currentTransactionStartOffset().orElse(-1));
      // The commit's marker bumped the epoch (KIP-890's epoch at every end), with no sequence in
      // it yet; nothing is open. The marker's coordinator epoch (0 for a new coordinator; each
      // restart of its object bumps it), as Kafka 4.4 shows it.
      assertEquals(1, committed.size());
      assertEquals(open.get(0).producerEpoch() + 1, committed.get(0).producerEpoch());
      assertEquals(-1, committed.get(0).lastSequence());
      assertTrue(committed.get(0).coordinatorEpoch().orElse(-1) >= 0, "the marker's coordinator epoch: " + committed.get(0).coordinatorEpoch());
      assertEquals(-1, committed.get(0).currentTransactionStartOffset().orElse(-1));
    }
  }
}
