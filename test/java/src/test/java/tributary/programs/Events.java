package tributary.programs;

import java.util.Collection;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;

/**
 * What the programs share: their events, one JSON object a line on stdout, flushed at once and
 * from any thread (the e2e tests read them as they come), and their waits.
 */
final class Events {
  private Events() {}

  static synchronized void print(String json) {
    System.out.println(json);
    System.out.flush();
  }

  static void phase(String name) {
    print("{\"event\":\"phase\",\"phase\":\"" + name + "\"}");
  }

  /** Waits until `condition` holds, polling every 50 ms; after a minute, throws naming `what`. */
  static void waitFor(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 60_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) throw new IllegalStateException("timed out waiting until " + what);
      Thread.sleep(50);
    }
  }

  /** As waitFor, for 90 s; then prints an error event and exits 1 (Kafka Streams' threads would outlive a thrown error). */
  static void waitOrExit(BooleanSupplier condition, String what) throws InterruptedException {
    long deadline = System.currentTimeMillis() + 90_000;
    while (!condition.getAsBoolean()) {
      if (System.currentTimeMillis() > deadline) {
        print("{\"event\":\"error\",\"error\":\"timed out waiting until " + what + "\"}");
        System.exit(1);
      }
      Thread.sleep(100);
    }
  }

  /** The partitions' numbers as a sorted JSON array. */
  static String partitionsJson(Collection<TopicPartition> partitions) {
    Set<Integer> numbers = new TreeSet<>();
    for (TopicPartition partition : partitions) numbers.add(partition.partition());
    StringBuilder json = new StringBuilder("[");
    for (Integer number : numbers) json.append(json.length() == 1 ? "" : ",").append(number);
    return json.append("]").toString();
  }

  /** The strings as a JSON array, in their set's order. */
  static String stringsJson(Set<String> values) {
    StringBuilder json = new StringBuilder("[");
    for (String value : values) json.append(json.length() == 1 ? "" : ",").append('"').append(value).append('"');
    return json.append("]").toString();
  }

  /** The ids of the active tasks of a Kafka Streams instance's threads, sorted. */
  static Set<String> tasks(KafkaStreams streams) {
    Set<String> ids = new TreeSet<>();
    for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
      for (TaskMetadata task : thread.activeTasks()) ids.add(task.taskId().toString());
    }
    return ids;
  }
}
