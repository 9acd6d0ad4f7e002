package tributary.programs;

import static tributary.programs.Events.*;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Two Java consumers with KIP-848's protocol (group.protocol=consumer, the server's "range"
 * assignor by group.remote.assignor) in one group, beside whatever other members the test
 * runs (an HTTP member):
 *
 *   java -cp 'classes:lib/*' tributary.programs.ConsumerProtocolGroup BOOTSTRAP TOPIC GROUP REGEX
 *
 * 1. "a" subscribes to TOPIC by name, "b" by the regex REGEX (resolved by the broker); both get
 *    partitions and read records, committing after every poll (and on revocation).
 * 2. The Admin client describes the group (ConsumerGroupDescribe).
 * 3. "b" closes (it leaves the group); the group is Stable without it.
 * 4. "a" reads until it is idle for 3 s, commits, reads its commits back, and closes.
 *
 * Prints one JSON line per event: {"consumer", "event": "assigned"|"revoked"|"lost"|"record"|
 * "committed"|"described"|"phase"|"error", "partitions"?, "partition"?, "offset"?, …}.
 */
public class ConsumerProtocolGroup {
  static String bootstrap;
  static String topic;
  static String group;

  public static void main(String[] args) throws Exception {
    Thread.setDefaultUncaughtExceptionHandler((thread, error) -> {
      print("{\"event\":\"error\",\"error\":\"" + error.toString().replace("\"", "'") + "\"}");
      System.exit(1);
    });
    bootstrap = args[0];
    topic = args[1];
    group = args[2];
    Member a = new Member("a", null);
    Member b = new Member("b", args[3]);
    a.start();
    b.start();
    waitFor(() -> !a.owned().isEmpty() && !b.owned().isEmpty() && a.records > 0 && b.records > 0, "a and b have partitions and read records");
    int members = describe().members().size();
    phase("shared");

    b.stop();
    waitFor(() -> {
      ConsumerGroupDescription description = describe();
      return description.members().size() == members - 1 && description.groupState() == GroupState.STABLE;
    }, "the group is stable without b");
    phase("rebalanced");

    a.idleThenCommit();
    a.stop();
    phase("done");
    System.exit(0);
  }

  /** The group as the Admin client describes it (ConsumerGroupDescribe), printed. */
  static ConsumerGroupDescription describe() {
    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(config)) {
      ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      print("{\"event\":\"described\",\"type\":\"" + description.type() + "\",\"state\":\"" + description.groupState()
          + "\",\"assignor\":\"" + description.partitionAssignor() + "\",\"members\":" + description.members().size() + "}");
      return description;
    } catch (Exception error) {
      throw new IllegalStateException(error);
    }
  }

  static class Member implements ConsumerRebalanceListener {
    final String name;
    final String regex;
    final KafkaConsumer<String, String> consumer;
    final Set<TopicPartition> owned = new HashSet<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    volatile int records = 0;
    volatile long lastRecordAt = System.currentTimeMillis();
    volatile boolean finishRequested = false;
    volatile boolean finished = false;
    Thread thread;

    Member(String name, String regex) {
      this.name = name;
      this.regex = regex;
      Properties config = new Properties();
      config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
      config.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range");
      config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
      config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      config.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
      config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
      consumer = new KafkaConsumer<>(config);
    }

    synchronized Set<TopicPartition> owned() {
      return new HashSet<>(owned);
    }

    void start() {
      thread = new Thread(this::run, name);
      thread.start();
    }

    void stop() throws InterruptedException {
      running.set(false);
      thread.join(30_000);
    }

    /** Reads until nothing came for 3 s, then commits and reads the commits back. */
    void idleThenCommit() throws InterruptedException {
      waitFor(() -> System.currentTimeMillis() - lastRecordAt > 3_000, name + " idle");
      finishRequested = true;
      waitFor(() -> finished, name + " committed");
    }

    void run() {
      try {
        if (regex == null) consumer.subscribe(List.of(topic), this);
        else consumer.subscribe(new SubscriptionPattern(regex), this);
        while (running.get()) {
          int count = 0;
          for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(100))) {
            count++;
            print("{\"consumer\":\"" + name + "\",\"event\":\"record\",\"partition\":" + record.partition() + ",\"offset\":" + record.offset() + "}");
          }
          if (count > 0) {
            records += count;
            lastRecordAt = System.currentTimeMillis();
            consumer.commitSync();
          }
          if (finishRequested && !finished) {
            consumer.commitSync();
            for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : consumer.committed(owned()).entrySet()) {
              if (entry.getValue() == null) continue;
              print("{\"consumer\":\"" + name + "\",\"event\":\"committed\",\"partition\":" + entry.getKey().partition() + ",\"offset\":" + entry.getValue().offset() + "}");
            }
            finished = true;
          }
        }
      } catch (RuntimeException error) {
        print("{\"consumer\":\"" + name + "\",\"event\":\"error\",\"error\":\"" + error.toString().replace("\"", "'") + "\"}");
      } finally {
        consumer.close(Duration.ofSeconds(10));
      }
    }

    void event(String event, Collection<TopicPartition> partitions) {
      print("{\"consumer\":\"" + name + "\",\"event\":\"" + event + "\",\"partitions\":" + partitionsJson(partitions)
          + ",\"epoch\":" + consumer.groupMetadata().generationId() + "}");
    }

    @Override
    public synchronized void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      owned.addAll(partitions);
      event("assigned", partitions);
    }

    @Override
    public synchronized void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      // Commit what was read of them before they go (the callback runs on the polling thread).
      if (!partitions.isEmpty()) consumer.commitSync();
      owned.removeAll(partitions);
      event("revoked", partitions);
    }

    @Override
    public synchronized void onPartitionsLost(Collection<TopicPartition> partitions) {
      owned.removeAll(partitions);
      event("lost", partitions);
    }
  }
}
