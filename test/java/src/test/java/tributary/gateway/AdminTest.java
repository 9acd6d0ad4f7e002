package tributary.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.ListTransactionsOptions;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TopicListing;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.ShareGroupDescription;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.InvalidRegularExpression;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The Java Admin client 4.4 through `tributary gateway` (issue 29): topics with configs,
 * describeCluster with its authorized operations, ListOffsets by each spec (v7+'s largest
 * timestamp, v8+'s earliest local), DeleteRecords, consumer groups listed, described,
 * their offsets altered and deleted, a share group described.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(60)
class AdminTest {
  private Admin admin;

  @BeforeAll
  void connect() {
    admin = Gateway.admin();
  }

  @AfterAll
  void close() {
    admin.close();
  }

  private String createTopic(String prefix, int partitions, Map<String, String> configs) throws Exception {
    String topic = Gateway.unique(prefix);
    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1).configs(configs))).all().get();
    return topic;
  }

  private static KafkaProducer<String, String> producer() {
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("key.serializer", StringSerializer.class.getName());
    config.put("value.serializer", StringSerializer.class.getName());
    return new KafkaProducer<>(config);
  }

  @Test
  void topicsAreCreatedWithConfigsWhichDescribeAndAlterReadBack() throws Exception {
    String topic = createTopic("configured", 2, Map.of("cleanup.policy", "compact", "retention.ms", "3600000"));
    ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
    Config created = admin.describeConfigs(List.of(resource)).all().get().get(resource);
    assertEquals("compact", created.get("cleanup.policy").value());
    assertEquals("3600000", created.get("retention.ms").value());
    assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, created.get("retention.ms").source());
    admin.incrementalAlterConfigs(Map.of(resource, List.of(
        new AlterConfigOp(new ConfigEntry("retention.ms", "7200000"), AlterConfigOp.OpType.SET),
        new AlterConfigOp(new ConfigEntry("max.message.bytes", "500000"), AlterConfigOp.OpType.SET)))).all().get();
    Config altered = admin.describeConfigs(List.of(resource)).all().get().get(resource);
    assertEquals("7200000", altered.get("retention.ms").value());
    assertEquals("500000", altered.get("max.message.bytes").value());
    assertEquals(2, admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size());
  }

  @Test
  void describeClusterNamesTheDeploymentsClusterIdAndTheGatewayAsItsOnlyBroker() throws Exception {
    Matcher id = Pattern.compile("\"clusterId\"\\s*:\\s*\"([^\"]+)\"").matcher(Gateway.get("/v1/cluster"));
    assertTrue(id.find(), "GET /v1/cluster has a clusterId");
    DescribeClusterResult cluster = admin.describeCluster(new DescribeClusterOptions().includeAuthorizedOperations(true));
    assertEquals(id.group(1), cluster.clusterId().get());
    assertEquals(List.of("0 " + Gateway.bootstrap()), cluster.nodes().get().stream().map((node) -> node.id() + " " + node.host() + ":" + node.port()).toList());
    assertEquals(0, cluster.controller().get().id());
    // What Kafka 4.4 without an authorizer answers, as the deployment is open.
    assertEquals(EnumSet.of(AclOperation.CREATE, AclOperation.ALTER, AclOperation.DESCRIBE, AclOperation.CLUSTER_ACTION, AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS, AclOperation.IDEMPOTENT_WRITE),
        EnumSet.copyOf(cluster.authorizedOperations().get()));
  }

  @Test
  void listOffsetsAnswersEachSpecAndDeleteRecordsMovesTheEarliest() throws Exception {
    String topic = createTopic("specs", 1, Map.of());
    TopicPartition partition = new TopicPartition(topic, 0);
    long base = System.currentTimeMillis() - 60_000;
    try (KafkaProducer<String, String> producer = producer()) {
      // Timestamps out of order: the largest is offset 1's.
      for (long delta : new long[] {0, 5_000, 1_000, 2_000}) producer.send(new ProducerRecord<>(topic, 0, base + delta, null, "v" + delta)).get();
    }
    assertEquals(0, offset(partition, OffsetSpec.earliest()).offset());
    assertEquals(4, offset(partition, OffsetSpec.latest()).offset());
    ListOffsetsResultInfo largest = offset(partition, OffsetSpec.maxTimestamp());
    assertEquals(1, largest.offset());
    assertEquals(base + 5_000, largest.timestamp());
    // The first offset whose timestamp is at or after the one asked for.
    assertEquals(1, offset(partition, OffsetSpec.forTimestamp(base + 500)).offset());
    assertEquals(0, offset(partition, OffsetSpec.forTimestamp(base)).offset());
    assertEquals(-1, offset(partition, OffsetSpec.forTimestamp(base + 10_000)).offset());
    // ListOffsets v8+: the earliest offset held locally (Tributary's log start, R2 included).
    assertEquals(0, offset(partition, OffsetSpec.earliestLocal()).offset());
    // v9+ and v11+: nothing sealed to R2 yet (four small records): no last tiered offset, and the first not uploaded is the log start.
    assertEquals(-1, offset(partition, OffsetSpec.latestTiered()).offset());
    assertEquals(0, offset(partition, OffsetSpec.earliestPendingUpload()).offset());

    long low = admin.deleteRecords(Map.of(partition, RecordsToDelete.beforeOffset(2))).lowWatermarks().get(partition).get().lowWatermark();
    assertEquals(2, low);
    assertEquals(2, offset(partition, OffsetSpec.earliest()).offset());
    assertEquals(4, offset(partition, OffsetSpec.latest()).offset());
    assertEquals(2, offset(partition, OffsetSpec.earliestPendingUpload()).offset());
  }

  private ListOffsetsResultInfo offset(TopicPartition partition, OffsetSpec spec) throws Exception {
    return admin.listOffsets(Map.of(partition, spec)).partitionResult(partition).get();
  }

  @Test
  void consumerGroupsAreListedDescribedAndTheirOffsetsAlteredAndDeleted() throws Exception {
    String topic = createTopic("grouped", 2, Map.of());
    String group = Gateway.unique("admin-group");
    TopicPartition zero = new TopicPartition(topic, 0);
    TopicPartition one = new TopicPartition(topic, 1);
    admin.alterConsumerGroupOffsets(group, Map.of(zero, new OffsetAndMetadata(3, "three"), one, new OffsetAndMetadata(5))).all().get();
    Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    assertEquals(3, committed.get(zero).offset());
    assertEquals("three", committed.get(zero).metadata());
    assertEquals(5, committed.get(one).offset());

    Collection<GroupListing> listed = admin.listGroups().all().get();
    GroupListing listing = listed.stream().filter((candidate) -> candidate.groupId().equals(group)).findFirst().orElseThrow(() -> new AssertionError(group + " is not among " + listed));
    assertEquals(GroupState.EMPTY, listing.groupState().orElseThrow());
    ConsumerGroupDescription described = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
    assertEquals(GroupState.EMPTY, described.groupState());
    assertTrue(described.members().isEmpty());

    admin.deleteConsumerGroupOffsets(group, Set.of(zero)).all().get();
    assertEquals(Set.of(one), admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().keySet());
    admin.deleteConsumerGroups(List.of(group)).all().get();
    assertTrue(admin.listGroups().all().get().stream().noneMatch((candidate) -> candidate.groupId().equals(group)), "the group is deleted");
  }

  @Test
  void aShareGroupIsListedAsOneAndDescribedWithItsMemberAndAssignment() throws Exception {
    String topic = createTopic("shared", 2, Map.of());
    String group = Gateway.unique("admin-share");
    Properties config = new Properties();
    config.put("bootstrap.servers", Gateway.bootstrap());
    config.put("group.id", group);
    config.put("client.id", "described-member");
    config.put("key.deserializer", StringDeserializer.class.getName());
    config.put("value.deserializer", StringDeserializer.class.getName());
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(config)) {
      consumer.subscribe(List.of(topic));
      ShareGroupDescription described = null;
      Optional<GroupListing> listing = Optional.empty();
      // The member joins with its first poll, its assignment follows a heartbeat later, and the
      // group is listed once the deployment holds it (its first share fetch).
      for (int attempt = 0; attempt < 50; attempt++) {
        consumer.poll(Duration.ofMillis(200));
        try {
          described = admin.describeShareGroups(List.of(group)).all().get().get(group);
        } catch (ExecutionException notYet) {
          // GROUP_ID_NOT_FOUND until the member's first heartbeat has reached the gateway.
          if (!(notYet.getCause() instanceof GroupIdNotFoundException)) throw notYet;
          continue;
        }
        listing = admin.listGroups().all().get().stream().filter((candidate) -> candidate.groupId().equals(group)).findFirst();
        if (!described.members().isEmpty() && !described.members().iterator().next().assignment().topicPartitions().isEmpty() && listing.isPresent()) break;
      }
      assertTrue(described != null, group + " described");
      assertEquals(GroupState.STABLE, described.groupState());
      assertEquals(1, described.members().size());
      assertEquals("described-member", described.members().iterator().next().clientId());
      assertEquals(Set.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1)), described.members().iterator().next().assignment().topicPartitions());
      assertTrue(listing.isPresent(), "ListGroups lists " + group);
      assertEquals(GroupType.SHARE, listing.get().type().orElseThrow());
      assertEquals(GroupState.STABLE, listing.get().groupState().orElseThrow());
    }
  }

  @Test
  void theAnchorTopicsAreListedAsInternalAndTheirDeletionIsRefused() throws Exception {
    // A transactional id's first init makes the coordinators' anchor topic, _transaction_state.
    assertEquals(200, Gateway.post("/v1/transactions/" + Gateway.unique("anchored") + "/init", "{}"));
    Map<String, Boolean> internal = admin.listTopics(new ListTopicsOptions().listInternal(true)).listings().get().stream()
        .collect(Collectors.toMap(TopicListing::name, TopicListing::isInternal));
    assertEquals(Boolean.TRUE, internal.get("_transaction_state"), "listed as internal: " + internal);
    assertEquals(Boolean.TRUE, internal.get("__consumer_offsets"));
    String plain = createTopic("plain", 1, Map.of());
    // Without listInternal the Admin leaves internal topics out, as on Kafka.
    Set<String> names = admin.listTopics().names().get();
    assertTrue(names.contains(plain) && !names.contains("_transaction_state"), String.valueOf(names));
    // DeleteTopics: INVALID_REQUEST (the message says why), and the topic is still there.
    ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> admin.deleteTopics(List.of("_transaction_state")).all().get());
    assertTrue(refused.getCause() instanceof InvalidRequestException, String.valueOf(refused.getCause()));
    assertTrue(refused.getCause().getMessage().contains("internal"), refused.getCause().getMessage());
    assertTrue(admin.listTopics(new ListTopicsOptions().listInternal(true)).names().get().contains("_transaction_state"));
  }

  @Test
  void listTransactionsFiltersByAPatternTheWholeIdMustMatch() throws Exception {
    // As Kafka 4.4 answers it (checked with this client against kafka.sh's broker): a full match, "" lists all, "(" fails.
    String prefix = Gateway.unique("pattern");
    for (String id : List.of(prefix + "-1", "x" + prefix + "-2")) {
      assertEquals(200, Gateway.post("/v1/transactions/" + id + "/init", "{}"));
    }
    java.util.function.Function<String, List<String>> listed = (pattern) -> {
      try {
        return admin.listTransactions(new ListTransactionsOptions().filterOnTransactionalIdPattern(pattern)).all().get().stream()
            .map(TransactionListing::transactionalId).filter((id) -> id.contains(prefix)).sorted().toList();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    };
    assertEquals(List.of(), listed.apply(prefix));
    assertEquals(List.of(prefix + "-1"), listed.apply(prefix + "-.*"));
    assertEquals(List.of(prefix + "-1", "x" + prefix + "-2"), listed.apply(".*" + prefix + ".*"));
    assertEquals(List.of(prefix + "-1", "x" + prefix + "-2"), listed.apply(""));
    ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, () -> admin.listTransactions(new ListTransactionsOptions().filterOnTransactionalIdPattern("(")).all().get());
    assertTrue(refused.getCause() instanceof InvalidRegularExpression, String.valueOf(refused.getCause()));
  }
}
