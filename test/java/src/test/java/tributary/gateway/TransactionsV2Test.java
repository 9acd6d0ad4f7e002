package tributary.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java client 4.4's transactional producer with transaction version 2 (KIP-890 part 2), which
 * it takes because the gateway's ApiVersions finalizes `transaction.version` 2, as Kafka 4.4
 * does: no AddPartitionsToTxn (a Produce v12 adds its partition) and no AddOffsetsToTxn (a
 * TxnOffsetCommit v5 adds its group), and every EndTxn v5 answers the epoch it bumped to, which
 * the producer writes the next transaction with. The producer's transaction manager is read by
 * reflection (as Flink's Kafka sink reads it): whether it took version 2, and its epoch.
 */
@Timeout(60)
class TransactionsV2Test {
  private static Properties producerConfig(String transactionalId) {
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("key.serializer", StringSerializer.class.getName());
    config.put("value.serializer", StringSerializer.class.getName());
    config.put("transactional.id", transactionalId);
    config.put("max.block.ms", "20000");
    return config;
  }

  private static Object transactionManager(KafkaProducer<?, ?> producer) throws Exception {
    Field field = KafkaProducer.class.getDeclaredField("transactionManager");
    field.setAccessible(true);
    return field.get(producer);
  }

  private static boolean usesVersion2(KafkaProducer<?, ?> producer) throws Exception {
    Object manager = transactionManager(producer);
    return (boolean) manager.getClass().getMethod("isTransactionV2Enabled").invoke(manager);
  }

  private static short epoch(KafkaProducer<?, ?> producer) throws Exception {
    Object manager = transactionManager(producer);
    Field field = manager.getClass().getDeclaredField("producerIdAndEpoch");
    field.setAccessible(true);
    Object idAndEpoch = field.get(manager);
    return idAndEpoch.getClass().getField("epoch").getShort(idAndEpoch);
  }

  /** Every record of the topic's partitions a read_committed consumer reads, as "partition:value". */
  private static List<String> readCommitted(String topic, int partitions, int expected) {
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("key.deserializer", StringDeserializer.class.getName());
    config.put("value.deserializer", StringDeserializer.class.getName());
    config.put("isolation.level", "read_committed");
    List<String> read = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> assigned = new ArrayList<>();
      for (int partition = 0; partition < partitions; partition++) assigned.add(new TopicPartition(topic, partition));
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      long deadline = System.currentTimeMillis() + 15_000;
      while (read.size() < expected && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) read.add(record.partition() + ":" + record.value());
      }
      // One more poll: nothing past what was expected (an aborted record would show here).
      for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) read.add(record.partition() + ":" + record.value());
    }
    read.sort(null);
    return read;
  }

  @Test
  void commitsAndAbortsWithVersion2TheEpochBumpedAtEveryEnd() throws Exception {
    String topic = Gateway.unique("tv2");
    String group = Gateway.unique("tv2-group");
    try (Admin admin = Gateway.admin(); KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig(Gateway.unique("tv2-producer")))) {
      admin.createTopics(List.of(new NewTopic(topic, 2, (short) 1))).all().get();
      producer.initTransactions();
      assertTrue(usesVersion2(producer), "the producer took transaction version 2");
      short initialized = epoch(producer);

      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, null, "a"));
      producer.send(new ProducerRecord<>(topic, 1, null, "b"));
      producer.sendOffsetsToTransaction(Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(7)), new ConsumerGroupMetadata(group));
      producer.commitTransaction();
      assertEquals(initialized + 1, epoch(producer), "the commit's EndTxn v5 answered the bumped epoch");

      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 0, null, "aborted"));
      producer.flush();
      producer.abortTransaction();
      assertEquals(initialized + 2, epoch(producer), "the abort's too");

      producer.beginTransaction();
      producer.send(new ProducerRecord<>(topic, 1, null, "c"));
      producer.commitTransaction();
      assertEquals(initialized + 3, epoch(producer));

      assertEquals(List.of("0:a", "1:b", "1:c"), readCommitted(topic, 2, 3));
      Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
      assertEquals(7, committed.get(new TopicPartition(topic, 0)).offset(), "the offsets committed with the first transaction");
    }
  }

  @Test
  void aNewInstanceFencesTheOlderOne() throws Exception {
    String topic = Gateway.unique("tv2-fenced");
    String transactionalId = Gateway.unique("tv2-fenced-producer");
    try (Admin admin = Gateway.admin();
         KafkaProducer<String, String> older = new KafkaProducer<>(producerConfig(transactionalId))) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
      older.initTransactions();
      older.beginTransaction();
      older.send(new ProducerRecord<>(topic, 0, null, "older")).get();
      try (KafkaProducer<String, String> newer = new KafkaProducer<>(producerConfig(transactionalId))) {
        newer.initTransactions(); // aborts what the older one left open, and fences it
        assertTrue(usesVersion2(newer));
        KafkaException refused = assertThrows(KafkaException.class, older::commitTransaction);
        assertInstanceOf(ProducerFencedException.class, refused, refused.toString());
        newer.beginTransaction();
        newer.send(new ProducerRecord<>(topic, 0, null, "newer"));
        newer.commitTransaction();
      }
      assertEquals(List.of("0:newer"), readCommitted(topic, 1, 1));
    }
  }
}
