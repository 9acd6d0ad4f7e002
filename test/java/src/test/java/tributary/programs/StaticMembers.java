package tributary.programs;

import static tributary.programs.Events.*;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.FencedInstanceIdException;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Java consumers with static membership (group.instance.id) and the CooperativeStickyAssignor
 * in one classic group, through one scenario:
 *
 *   java -cp 'classes:lib/*' tributary.programs.StaticMembers BOOTSTRAP TOPIC GROUP
 *
 * 1. "a" (instance static-a) and "b" (instance static-b) join; they share the topic's partitions.
 * 2. "b" closes (a static member sends no LeaveGroup) and "b2" starts with instance static-b
 *    within the session timeout: it gets b's partitions back; "a" sees no rebalance.
 * 3. "dup" starts with instance static-a while "a" runs: one of the two is fenced.
 * 4. Offsets committed with a metadata string are read back with it.
 *
 * Prints one JSON line per event: {"consumer", "event": "assigned"|"revoked"|"lost"|"fenced"|
 * "records"|"committed"|"phase", "partitions"?, "generation"?, "count"?, "metadata"?, "phase"?}.
 */
public class StaticMembers {
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
    Member a = new Member("a", "static-a");
    Member b = new Member("b", "static-b");
    a.start();
    b.start();
    waitFor(() -> a.owned().size() + b.owned().size() == partitions() && !a.owned().isEmpty() && !b.owned().isEmpty(), "a and b share the partitions");
    waitFor(() -> a.records > 0 && b.records > 0, "a and b read records");
    phase("shared");

    b.stop();
    Member b2 = new Member("b2", "static-b");
    b2.start();
    waitFor(() -> !b2.owned().isEmpty(), "b2 has partitions");
    Thread.sleep(3_000); // time for any rebalance the restart would cause to show on a
    phase("restarted");

    Member dup = new Member("dup", "static-a");
    dup.start();
    waitFor(() -> a.fenced.get() || dup.fenced.get(), "one of a and dup fenced");
    waitFor(() -> !(a.fenced.get() ? dup : a).owned().isEmpty(), "the other one has partitions");
    Member survivor = a.fenced.get() ? dup : a;
    survivor.commitWithMetadata();
    phase("fenced");

    for (Member member : List.of(a, b2, dup)) member.stop();
    phase("done");
    System.exit(0);
  }

  static int partitions() {
    return 4;
  }

  static class Member implements ConsumerRebalanceListener {
    final String name;
    final KafkaConsumer<String, String> consumer;
    final Set<TopicPartition> owned = new HashSet<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicBoolean fenced = new AtomicBoolean(false);
    volatile int records = 0;
    volatile boolean commitRequested = false;
    Thread thread;

    Member(String name, String instanceId) {
      this.name = name;
      Properties config = new Properties();
      config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
      config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
      config.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName());
      config.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
      config.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
      config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
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

    void commitWithMetadata() throws InterruptedException {
      commitRequested = true;
      waitFor(() -> !commitRequested, name + " committed");
    }

    void run() {
      try {
        consumer.subscribe(List.of(topic), this);
        while (running.get()) {
          int count = 0;
          for (ConsumerRecord<String, String> ignored : consumer.poll(Duration.ofMillis(100))) count++;
          if (count > 0) {
            records += count;
            print("{\"consumer\":\"" + name + "\",\"event\":\"records\",\"count\":" + count + "}");
          }
          if (commitRequested) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (TopicPartition partition : owned()) offsets.put(partition, new OffsetAndMetadata(consumer.position(partition), "checkpoint of " + name));
            consumer.commitSync(offsets);
            for (Map.Entry<TopicPartition, OffsetAndMetadata> entry : consumer.committed(offsets.keySet()).entrySet()) {
              print("{\"consumer\":\"" + name + "\",\"event\":\"committed\",\"partition\":" + entry.getKey().partition()
                  + ",\"offset\":" + entry.getValue().offset() + ",\"metadata\":\"" + entry.getValue().metadata() + "\"}");
            }
            commitRequested = false;
          }
        }
      } catch (FencedInstanceIdException error) {
        fenced.set(true);
        print("{\"consumer\":\"" + name + "\",\"event\":\"fenced\"}");
      } catch (RuntimeException error) {
        print("{\"consumer\":\"" + name + "\",\"event\":\"error\",\"error\":\"" + error.toString().replace("\"", "'") + "\"}");
      } finally {
        try {
          consumer.close(Duration.ofSeconds(5));
        } catch (RuntimeException ignored) {
          // a fenced member's close may fail too
        }
      }
    }

    void event(String event, Collection<TopicPartition> partitions) {
      print("{\"consumer\":\"" + name + "\",\"event\":\"" + event + "\",\"partitions\":" + partitionsJson(partitions)
          + ",\"generation\":" + consumer.groupMetadata().generationId() + "}");
    }

    @Override
    public synchronized void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      owned.addAll(partitions);
      event("assigned", partitions);
    }

    @Override
    public synchronized void onPartitionsRevoked(Collection<TopicPartition> partitions) {
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
