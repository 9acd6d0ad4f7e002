package tributary.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Java client's default producer (idempotent, acks all) with each compression codec (issue
 * 27's codecs, issue 29's check): its batches taken, and the records read back in order by a
 * consumer, keys, values and headers as sent.
 */
@Timeout(60)
class CompressionTest {
  @ParameterizedTest
  @ValueSource(strings = {"gzip", "snappy", "lz4", "zstd"})
  void theDefaultProducerWritesWithTheCodecAndAConsumerReadsEveryRecordBack(String codec) throws Exception {
    String topic = Gateway.unique("compressed-" + codec);
    try (Admin admin = Gateway.admin()) {
      admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
    }
    int records = 200;
    Properties producerConfig = new Properties();
    producerConfig.put("bootstrap.servers", Gateway.bootstrap());
    producerConfig.put("key.serializer", StringSerializer.class.getName());
    producerConfig.put("value.serializer", StringSerializer.class.getName());
    producerConfig.put("compression.type", codec);
    // Several records per batch, so that the codec has something to compress.
    producerConfig.put("linger.ms", "20");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig)) {
      for (int index = 0; index < records; index++) {
        ProducerRecord<String, String> record = new ProducerRecord<>(topic, 0, "k" + index, "value " + index + " " + "x".repeat(index % 50));
        record.headers().add("index", Integer.toString(index).getBytes());
        producer.send(record);
      }
      producer.flush();
    }
    Properties consumerConfig = new Properties();
    consumerConfig.put("bootstrap.servers", Gateway.bootstrap());
    consumerConfig.put("key.deserializer", StringDeserializer.class.getName());
    consumerConfig.put("value.deserializer", StringDeserializer.class.getName());
    List<ConsumerRecord<String, String>> read = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerConfig)) {
      TopicPartition partition = new TopicPartition(topic, 0);
      consumer.assign(List.of(partition));
      consumer.seekToBeginning(List.of(partition));
      long deadline = System.currentTimeMillis() + 30_000;
      while (read.size() < records && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) read.add(record);
      }
    }
    assertEquals(records, read.size());
    for (int index = 0; index < records; index++) {
      ConsumerRecord<String, String> record = read.get(index);
      assertEquals(index, record.offset());
      assertEquals("k" + index, record.key());
      assertEquals("value " + index + " " + "x".repeat(index % 50), record.value());
      assertEquals(Integer.toString(index), new String(record.headers().lastHeader("index").value()));
    }
  }
}
