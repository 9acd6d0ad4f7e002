import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ProducerState;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.LogTruncationException;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Checks of the Java client 4.4 against `tributary gateway` that need no group (issue 35):
 *
 *   java -cp 'lib/*' GatewayBasics.java consume BOOTSTRAP TOPIC PARTITIONS RECORDS
 *     reads RECORDS records from offset 0 of partitions 0..PARTITIONS-1 (assigned, no group),
 *     prints {"read":N}; the client's warnings go to stderr (an invalid fetch answer is one)
 *   java -cp 'lib/*' GatewayBasics.java topics BOOTSTRAP NEW_TOPIC
 *     the Admin client's topic listing with internal topics, then CreateTopics of NEW_TOPIC:
 *     prints {"topics":{"<name>":<internal>,…},"created":"<error or ok>"}
 *   java -cp 'lib/*' GatewayBasics.java offsets BOOTSTRAP TOPIC
 *     the Admin client's ListOffsets of partition 0 for OffsetSpec.maxTimestamp() (v7+) and
 *     earliestLocal() (v8+): prints {"maxTimestamp":{"offset":N,"timestamp":T},"earliestLocal":{"offset":N}}
 *   java -cp 'lib/*' GatewayBasics.java cluster BOOTSTRAP
 *     the Admin client's describeCluster with authorized operations: prints
 *     {"clusterId":"…","controller":N,"nodes":["id host:port",…],"operations":["ALTER",…]}
 *   java -cp 'lib/*' GatewayBasics.java validate BOOTSTRAP TOPIC OFFSET EPOCH
 *     a consumer (no group, auto.offset.reset none) seeks partition 0 to OFFSET read under leader
 *     EPOCH, which it validates with OffsetForLeaderEpoch (KIP-320), and reads to the end: prints
 *     {"first":N,"read":N} or {"truncated":DIVERGENT_OFFSET} or {"error":"<class>"}
 *   java -cp 'lib/*' GatewayBasics.java transactional BOOTSTRAP
 *     a transactional producer's initTransactions(): prints {"error":"<class>: <message>"} or {"error":null}
 */
public class GatewayBasics {
  public static void main(String[] args) {
    switch (args[0]) {
      case "consume" -> consume(args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]));
      case "transactional" -> transactional(args[1]);
      case "producers" -> producers(args[1], args[2]);
      case "topics" -> topics(args[1], args[2]);
      case "offsets" -> offsets(args[1], args[2]);
      case "cluster" -> cluster(args[1]);
      case "validate" -> validate(args[1], args[2], Long.parseLong(args[3]), Integer.parseInt(args[4]));
      default -> throw new IllegalArgumentException(args[0]);
    }
  }

  static void consume(String bootstrap, String topic, int partitions, int records) {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    int read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      List<TopicPartition> assigned = new ArrayList<>();
      for (int p = 0; p < partitions; p++) assigned.add(new TopicPartition(topic, p));
      consumer.assign(assigned);
      consumer.seekToBeginning(assigned);
      long deadline = System.currentTimeMillis() + 60_000;
      while (read < records && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<byte[], byte[]> ignored : consumer.poll(Duration.ofMillis(500))) read++;
      }
    }
    System.out.println("{\"read\":" + read + "}");
  }

  static void topics(String bootstrap, String newTopic) {
    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    StringBuilder json = new StringBuilder("{\"topics\":{");
    String created;
    try (Admin admin = Admin.create(config)) {
      boolean first = true;
      for (TopicListing listing : admin.listTopics(new ListTopicsOptions().listInternal(true)).listings().get()) {
        json.append(first ? "" : ",").append('"').append(listing.name()).append("\":").append(listing.isInternal());
        first = false;
      }
      try {
        admin.createTopics(List.of(new NewTopic(newTopic, 1, (short) 1))).all().get();
        created = "ok";
      } catch (Exception e) {
        created = e.getCause() == null ? e.toString() : e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage();
      }
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
    json.append("},\"created\":\"").append(created.replace("\\", "\\\\").replace("\"", "\\\"")).append("\"}");
    System.out.println(json);
  }

  static void offsets(String bootstrap, String topic) {
    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    TopicPartition partition = new TopicPartition(topic, 0);
    try (Admin admin = Admin.create(config)) {
      ListOffsetsResult.ListOffsetsResultInfo max = admin.listOffsets(Map.of(partition, OffsetSpec.maxTimestamp())).partitionResult(partition).get();
      ListOffsetsResult.ListOffsetsResultInfo local = admin.listOffsets(Map.of(partition, OffsetSpec.earliestLocal())).partitionResult(partition).get();
      System.out.println("{\"maxTimestamp\":{\"offset\":" + max.offset() + ",\"timestamp\":" + max.timestamp() + "},\"earliestLocal\":{\"offset\":" + local.offset() + "}}");
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static void cluster(String bootstrap) {
    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    try (Admin admin = Admin.create(config)) {
      DescribeClusterResult cluster = admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));
      List<String> nodes = new ArrayList<>();
      for (Node node : cluster.nodes().get()) nodes.add("\"" + node.id() + " " + node.host() + ":" + node.port() + "\"");
      List<String> operations = new ArrayList<>();
      for (AclOperation operation : new TreeSet<>(cluster.authorizedOperations().get())) operations.add("\"" + operation + "\"");
      System.out.println("{\"clusterId\":\"" + cluster.clusterId().get() + "\",\"controller\":" + cluster.controller().get().id()
          + ",\"nodes\":[" + String.join(",", nodes) + "],\"operations\":[" + String.join(",", operations) + "]}");
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static void validate(String bootstrap, String topic, long offset, int epoch) {
    Properties config = new Properties();
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
    config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    TopicPartition partition = new TopicPartition(topic, 0);
    long first = -1;
    int read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
      consumer.assign(List.of(partition));
      consumer.seek(partition, new OffsetAndMetadata(offset, Optional.of(epoch), ""));
      long end = consumer.endOffsets(List.of(partition)).get(partition);
      long deadline = System.currentTimeMillis() + 30_000;
      // A few polls at least: the validation runs in them, also for a position past the end.
      for (int polls = 0; (offset + read < end || polls < 4) && System.currentTimeMillis() < deadline; polls++) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          if (first < 0) first = record.offset();
          read++;
        }
      }
    } catch (LogTruncationException e) {
      OffsetAndMetadata divergent = e.divergentOffsets().get(partition);
      System.out.println("{\"truncated\":" + (divergent == null ? -1 : divergent.offset()) + "}");
      return;
    } catch (Exception e) {
      System.out.println("{\"error\":\"" + e.getClass().getSimpleName() + "\"}");
      return;
    }
    System.out.println("{\"first\":" + first + ",\"read\":" + read + "}");
  }

  static void transactional(String bootstrap) {
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "gateway-basics");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    String error = null;
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
      producer.initTransactions();
    } catch (Exception e) {
      Throwable cause = e;
      error = cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }
    System.out.println(error == null ? "{\"error\":null}" : "{\"error\":\"" + error.replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
  }
  /** The Admin's describeProducers (DescribeProducers, 61) of partition 0 while a transaction is open there, and after its commit. */
  static void producers(String bootstrap, String topic) {
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "gateway-basics-producers");
    config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "20000");
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    Properties adminConfig = new Properties();
    adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    TopicPartition partition = new TopicPartition(topic, 0);
    try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config); Admin admin = Admin.create(adminConfig)) {
      producer.initTransactions();
      producer.beginTransaction();
      long offset = producer.send(new ProducerRecord<>(topic, 0, null, "open".getBytes())).get().offset();
      String open = describe(admin, partition);
      producer.commitTransaction();
      System.out.println("{\"offset\":" + offset + ",\"open\":" + open + ",\"committed\":" + describe(admin, partition) + "}");
    } catch (Exception e) {
      throw new RuntimeException(e);
    }
  }

  static String describe(Admin admin, TopicPartition partition) throws Exception {
    List<String> states = new ArrayList<>();
    for (ProducerState state : admin.describeProducers(List.of(partition)).partitionResult(partition).get().activeProducers()) {
      states.add("{\"epoch\":" + state.producerEpoch() + ",\"lastSequence\":" + state.lastSequence() + ",\"coordinatorEpoch\":" + state.coordinatorEpoch().orElse(-1)
          + ",\"txnStart\":" + state.currentTransactionStartOffset().orElse(-1) + "}");
    }
    return "[" + String.join(",", states) + "]";
  }
}
