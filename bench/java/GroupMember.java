import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One member of the group failover row (bench/group-failover.ts): the Java client 4.4 with its
 * defaults but `group.protocol` (classic or consumer, KIP-848), subscribed to one topic. It says
 * on stdout which partitions it owns after each change (`owns 0,3`) and, after each poll that
 * returned records, when and from which partitions (`read <epoch ms> 1,4`); the bench kills one
 * member and times how long its partitions go unread.
 *
 * Arguments: bootstrap address, topic, group, protocol.
 */
public class GroupMember {
  public static void main(String[] args) {
    Properties config = new Properties();
    config.put("bootstrap.servers", args[0]);
    config.put("group.id", args[2]);
    config.put("group.protocol", args[3]);
    config.put("auto.offset.reset", "earliest");
    config.put("key.deserializer", ByteArrayDeserializer.class.getName());
    config.put("value.deserializer", ByteArrayDeserializer.class.getName());
    Set<Integer> owned = new TreeSet<>();
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.subscribe(List.of(args[1]), new ConsumerRebalanceListener() {
        @Override
        public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
          partitions.forEach((partition) -> owned.remove(partition.partition()));
          say("owns " + joined(owned));
        }

        @Override
        public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
          partitions.forEach((partition) -> owned.add(partition.partition()));
          say("owns " + joined(owned));
        }
      });
      for (;;) {
        Set<Integer> read = new TreeSet<>();
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) read.add(record.partition());
        if (!read.isEmpty()) say("read " + System.currentTimeMillis() + " " + joined(read));
      }
    }
  }

  private static String joined(Set<Integer> partitions) {
    return partitions.stream().map(String::valueOf).collect(Collectors.joining(","));
  }

  private static void say(String line) {
    System.out.println(line);
    System.out.flush();
  }
}
