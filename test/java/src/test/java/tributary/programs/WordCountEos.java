package tributary.programs;

import static tributary.programs.Events.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Produced;

/**
 * A Kafka Streams word count with processing.guarantee=exactly_once_v2 (issue 29): sentences in,
 * words re-keyed through a repartition topic, counted in a state store whose changelog (a
 * compacted topic) Streams creates through CreateTopics, every count update out (no cache).
 * Under exactly-once, the output read read_committed holds, for each word, the counts
 * 1, 2, …, N in order — nothing twice, nothing skipped — whatever instance died mid-transaction.
 *
 *   java -cp 'classes:lib/*' tributary.programs.WordCountEos crash BOOTSTRAP INPUT OUTPUT APPLICATION_ID STATE_DIR KILL_AFTER
 *     runs one instance, slowed (a few ms a sentence); prints {"event":"kill-me"} once it has
 *     counted KILL_AFTER sentences, and goes on until the test kills it (SIGKILL: no close,
 *     its open transaction left behind).
 *   java -cp 'classes:lib/*' tributary.programs.WordCountEos finish BOOTSTRAP INPUT OUTPUT APPLICATION_ID STATE_DIR STATE_DIR_2
 *     restarts the instance on STATE_DIR (its process id, hence its transactional id, kept
 *     there), then a second instance joins (a rebalance under exactly-once: tasks and their
 *     stores move); once both run with tasks it prints {"event":"tasks",...} for each, reads
 *     the whole input read_committed for the expected counts, then the output read_committed
 *     until every word's last count is reached, and prints {"event":"verified","words",
 *     "updates","wrong":[...]} — `wrong` names each word whose counts are not exactly 1..N.
 * Prints {"event":"error",...} on any uncaught error or timeout.
 */
public class WordCountEos {
  public static void main(String[] args) throws Exception {
    String mode = args[0];
    String bootstrap = args[1];
    String input = args[2];
    String output = args[3];
    String applicationId = args[4];
    if (mode.equals("crash")) {
      int killAfter = Integer.parseInt(args[6]);
      start(1, bootstrap, input, output, applicationId, args[5], killAfter);
      Thread.sleep(120_000);
      print("{\"event\":\"error\",\"error\":\"not killed\"}");
      System.exit(1);
    }
    KafkaStreams first = start(1, bootstrap, input, output, applicationId, args[5], -1);
    waitOrExit(() -> first.state() == KafkaStreams.State.RUNNING, "instance 1 running");
    KafkaStreams second = start(2, bootstrap, input, output, applicationId, args[6], -1);
    waitOrExit(() -> second.state() == KafkaStreams.State.RUNNING && first.state() == KafkaStreams.State.RUNNING
        && !tasks(first).isEmpty() && !tasks(second).isEmpty(), "both instances running with tasks");
    print("{\"event\":\"tasks\",\"instance\":1,\"tasks\":" + stringsJson(tasks(first)) + "}");
    print("{\"event\":\"tasks\",\"instance\":2,\"tasks\":" + stringsJson(tasks(second)) + "}");
    verify(bootstrap, input, output);
    first.close(Duration.ofSeconds(20));
    second.close(Duration.ofSeconds(20));
    System.exit(0);
  }

  static KafkaStreams start(int instance, String bootstrap, String input, String output, String applicationId, String stateDir, int killAfter) {
    Properties config = new Properties();
    config.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
    config.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(StreamsConfig.CLIENT_ID_CONFIG, applicationId + "-" + instance);
    config.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, System.getProperty("guarantee", StreamsConfig.EXACTLY_ONCE_V2));
    config.put(StreamsConfig.DEFAULT_KEY_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    config.put(StreamsConfig.DEFAULT_VALUE_SERDE_CLASS_CONFIG, Serdes.StringSerde.class);
    config.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    // Every count update goes out (no record cache folding them), so a duplicate shows.
    config.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
    config.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 300);
    // The repartition topic purged (DeleteRecords) below what each commit consumed, not every 30 s.
    config.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 200);
    config.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
    config.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6_000);
    config.put(StreamsConfig.producerPrefix(ProducerConfig.LINGER_MS_CONFIG), 0);
    config.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 1_000);
    AtomicInteger counted = new AtomicInteger();
    StreamsBuilder builder = new StreamsBuilder();
    builder.<String, String>stream(input)
        .flatMapValues(sentence -> {
          if (killAfter >= 0) sleep(3);
          return Arrays.asList(sentence.split(" "));
        })
        .groupBy((key, word) -> word)
        .count()
        .toStream()
        .peek((word, count) -> {
          // Once part of this transaction is in the output, the test kills this process.
          if (killAfter >= 0 && counted.incrementAndGet() == killAfter) {
            awaitOpenTransaction(bootstrap, output);
            print("{\"event\":\"kill-me\"}");
            sleep(60_000);
          }
        })
        .to(output, Produced.with(Serdes.String(), Serdes.Long()));
    KafkaStreams streams = new KafkaStreams(builder.build(), config);
    streams.setStateListener((now, before) -> print("{\"event\":\"state\",\"instance\":" + instance + ",\"state\":\"" + now + "\"}"));
    streams.setUncaughtExceptionHandler(error -> {
      print("{\"event\":\"error\",\"instance\":" + instance + ",\"error\":\"" + String.valueOf(error).replace("\"", "'").replace("\n", " ") + "\"}");
      return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    streams.start();
    return streams;
  }

  /** The expected counts from the input, then the output's counts per word until they reach them. */
  static void verify(String bootstrap, String input, String output) throws InterruptedException {
    Map<String, Long> expected = new HashMap<>();
    for (ConsumerRecord<String, String> record : readToEnd(bootstrap, input, new StringDeserializer(), 0, null, "read_committed")) {
      for (String word : record.value().split(" ")) expected.merge(word, 1L, Long::sum);
    }
    Map<String, List<Long>> counts = new TreeMap<>();
    List<ConsumerRecord<String, Long>> updates = readToEnd(bootstrap, output, new LongDeserializer(), 90_000, records -> {
      counts.clear();
      for (ConsumerRecord<String, Long> record : records) counts.computeIfAbsent(record.key(), word -> new ArrayList<>()).add(record.value());
      for (Map.Entry<String, Long> entry : expected.entrySet()) {
        List<Long> seen = counts.get(entry.getKey());
        if (seen == null || !seen.get(seen.size() - 1).equals(entry.getValue())) return false;
      }
      return true;
    }, "read_committed");
    List<String> wrong = new ArrayList<>();
    for (Map.Entry<String, Long> entry : expected.entrySet()) {
      List<Long> seen = counts.getOrDefault(entry.getKey(), List.of());
      List<Long> exact = new ArrayList<>();
      for (long n = 1; n <= entry.getValue(); n++) exact.add(n);
      if (!seen.equals(exact)) wrong.add("\"" + entry.getKey() + ": " + seen + " (expected 1.." + entry.getValue() + ")\"");
    }
    if (!counts.keySet().equals(expected.keySet())) wrong.add("\"words " + counts.keySet() + "\"");
    // Read read_uncommitted, the output holds the updates of the transaction the kill cut short too.
    int uncommitted = readToEnd(bootstrap, output, new LongDeserializer(), 0, null, "read_uncommitted").size();
    print("{\"event\":\"verified\",\"words\":" + expected.size() + ",\"updates\":" + updates.size() + ",\"uncommitted\":" + uncommitted + ",\"wrong\":[" + String.join(",", wrong) + "]}");
  }

  interface Complete<V> {
    boolean test(List<ConsumerRecord<String, V>> records);
  }

  /**
   * Every record of `topic` read read_committed from its start: to its end offsets (no
   * `complete`), or until `complete` holds of what was read (then `waitMs` at most).
   */
  static <V> List<ConsumerRecord<String, V>> readToEnd(String bootstrap, String topic, org.apache.kafka.common.serialization.Deserializer<V> values, long waitMs, Complete<V> complete, String isolation) throws InterruptedException {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
    List<ConsumerRecord<String, V>> records = new ArrayList<>();
    try (KafkaConsumer<String, V> consumer = new KafkaConsumer<>(config, new StringDeserializer(), values)) {
      List<TopicPartition> partitions = new ArrayList<>();
      for (PartitionInfo info : consumer.partitionsFor(topic)) partitions.add(new TopicPartition(topic, info.partition()));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
      long deadline = System.currentTimeMillis() + Math.max(waitMs, 30_000);
      while (complete == null ? partitions.stream().anyMatch(partition -> consumer.position(partition) < ends.get(partition)) : !complete.test(records)) {
        if (System.currentTimeMillis() > deadline) {
          print("{\"event\":\"error\",\"error\":\"reading " + topic + ": " + records.size() + " records, not complete\"}");
          System.exit(1);
        }
        for (ConsumerRecord<String, V> record : consumer.poll(Duration.ofMillis(200))) records.add(record);
      }
    }
    return records;
  }

  /** Waits until the output's high watermarks pass its last stable offsets: records of an open transaction are written. */
  static void awaitOpenTransaction(String bootstrap, String output) {
    Map<String, Long> sums = new HashMap<>();
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline) {
      for (String isolation : List.of("read_uncommitted", "read_committed")) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation);
        try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new LongDeserializer())) {
          List<TopicPartition> partitions = new ArrayList<>();
          for (PartitionInfo info : consumer.partitionsFor(output)) partitions.add(new TopicPartition(output, info.partition()));
          sums.put(isolation, consumer.endOffsets(partitions).values().stream().mapToLong(Long::longValue).sum());
        }
      }
      if (sums.get("read_uncommitted") > sums.get("read_committed")) return;
      sleep(50);
    }
    print("{\"event\":\"error\",\"error\":\"no open transaction's records in the output\"}");
  }

  static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
  }

}
