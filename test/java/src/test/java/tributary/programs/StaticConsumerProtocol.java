package tributary.programs;

import static tributary.programs.Events.*;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Static members (group.instance.id) with KIP-848's protocol (group.protocol=consumer):
 *
 *   java -cp 'classes:lib/*' tributary.programs.StaticConsumerProtocol BOOTSTRAP TOPIC GROUP
 *
 * 1. "a" (instance static-a) and "b" (instance static-b) join and share the partitions.
 * 2. "b" closes (a static member leaves for now) and "b2" starts with instance static-b
 *    within the session timeout: it gets b's partitions; "a" sees nothing move.
 *
 * Prints one JSON line per event: {"consumer", "event": "assigned"|"revoked"|"lost"|"phase"|
 * "error", "partitions"?, "epoch"?, "phase"?}.
 */
public class StaticConsumerProtocol {
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
    waitFor(() -> !a.owned().isEmpty() && !b.owned().isEmpty() && a.owned().size() + b.owned().size() == 4, "a and b share the partitions");
    Thread.sleep(2_000); // a and b settle: nothing pending
    phase("shared");

    b.stop();
    Member b2 = new Member("b2", "static-b");
    b2.start();
    waitFor(() -> !b2.owned().isEmpty(), "b2 has partitions");
    Thread.sleep(3_000); // time for anything the restart would move to show on a
    phase("restarted");
    a.stop();
    b2.stop();
    phase("done");
    System.exit(0);
  }

  static class Member implements ConsumerRebalanceListener {
    final String name;
    final KafkaConsumer<String, String> consumer;
    final Set<TopicPartition> owned = new HashSet<>();
    final AtomicBoolean running = new AtomicBoolean(true);
    Thread thread;

    Member(String name, String instanceId) {
      this.name = name;
      Properties config = new Properties();
      config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
      config.put(ConsumerConfig.GROUP_ID_CONFIG, group);
      config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
      config.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
      config.put(ConsumerConfig.CLIENT_ID_CONFIG, name);
      config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "true");
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

    void run() {
      try {
        consumer.subscribe(List.of(topic), this);
        while (running.get()) {
          for (ConsumerRecord<String, String> ignored : consumer.poll(Duration.ofMillis(100))) {
            // records are read; this program watches assignments
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
      if (!partitions.isEmpty()) event("assigned", partitions);
    }

    @Override
    public synchronized void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      owned.removeAll(partitions);
      if (!partitions.isEmpty()) event("revoked", partitions);
    }

    @Override
    public synchronized void onPartitionsLost(Collection<TopicPartition> partitions) {
      owned.removeAll(partitions);
      if (!partitions.isEmpty()) event("lost", partitions);
    }
  }
}
