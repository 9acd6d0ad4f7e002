package tributary.programs;

import static tributary.programs.Events.*;

import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;

/**
 * A Kafka Streams application (at_least_once, Streams' own "stream" assignor, whose user data
 * carries its subscription and assignment info) uppercasing one topic into another, through
 * one rebalance: instance 1 runs alone, then instance 2 joins and the two share the tasks.
 *
 *   java -cp 'classes:lib/*' tributary.programs.StreamsUppercase BOOTSTRAP INPUT OUTPUT APPLICATION_ID WRITTEN MORE
 *
 * WRITTEN records are in the input before it starts; once both instances run it writes MORE
 * ("late-<n>"), then reads the output until it holds WRITTEN + MORE distinct values.
 * Prints JSON lines: {"event":"state","instance","state"} on every state change,
 * {"event":"tasks","instance","tasks":[...]} once both run, {"event":"output","distinct",
 * "records"} once the output is complete, {"event":"error",...} on any uncaught error or
 * timeout, and {"event":"done"} after both closed.
 */
public class StreamsUppercase {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String input = args[1];
    String output = args[2];
    String applicationId = args[3];
    KafkaStreams first = start(1, bootstrap, input, output, applicationId);
    waitOrExit(() -> first.state() == KafkaStreams.State.RUNNING, "instance 1 running");
    Thread.sleep(2_000);
    KafkaStreams second = start(2, bootstrap, input, output, applicationId);
    waitOrExit(() -> second.state() == KafkaStreams.State.RUNNING && first.state() == KafkaStreams.State.RUNNING
        && !tasks(first).isEmpty() && !tasks(second).isEmpty(), "both instances running with tasks");
    print("{\"event\":\"tasks\",\"instance\":1,\"tasks\":" + stringsJson(tasks(first)) + "}");
    print("{\"event\":\"tasks\",\"instance\":2,\"tasks\":" + stringsJson(tasks(second)) + "}");
    int written = Integer.parseInt(args[4]);
    int more = Integer.parseInt(args[5]);
    Properties producerConfig = new Properties();
    producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerConfig, new StringSerializer(), new StringSerializer())) {
      for (int n = 0; n < more; n++) producer.send(new ProducerRecord<>(input, "late-" + n));
    }
    readOutput(bootstrap, output, written + more);
    first.close();
    second.close();
    print("{\"event\":\"done\"}");
    System.exit(0);
  }

  /** Reads the output topic from its start until it holds `expected` distinct values (or times out). */
  static void readOutput(String bootstrap, String output, int expected) throws InterruptedException {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    Set<String> distinct = new HashSet<>();
    int records = 0;
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : consumer.partitionsFor(output)) partitions.add(new TopicPartition(output, info.partition()));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      long deadline = System.currentTimeMillis() + 90_000;
      while (distinct.size() < expected) {
        if (System.currentTimeMillis() > deadline) {
          print("{\"event\":\"error\",\"error\":\"the output holds " + distinct.size() + " of " + expected + " values\"}");
          System.exit(1);
        }
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
          distinct.add(record.value());
          records++;
        }
      }
    }
    boolean upper = distinct.stream().allMatch(value -> value.equals(value.toUpperCase()));
    print("{\"event\":\"output\",\"distinct\":" + distinct.size() + ",\"records\":" + records + ",\"uppercase\":" + upper + "}");
  }

  static KafkaStreams start(int instance, String bootstrap, String input, String output, String applicationId) throws Exception {
    Properties config = new Properties();
    config.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(StreamsConfig.CLIENT_ID_CONFIG, applicationId + "-" + instance);
    config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
    config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    config.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("streams-" + instance).toString());
    config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, String>stream(input).mapValues(value -> value.toUpperCase()).to(output);
    KafkaStreams streams = new KafkaStreams(builder.build(), config);
    streams.setStateListener((now, before) -> print("{\"event\":\"state\",\"instance\":" + instance + ",\"state\":\"" + now + "\"}"));
    streams.setUncaughtExceptionHandler(error -> {
      print("{\"event\":\"error\",\"instance\":" + instance + ",\"error\":\"" + String.valueOf(error).replace("\"", "'").replace("\n", " ") + "\"}");
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.start();
    return streams;
  }

}
