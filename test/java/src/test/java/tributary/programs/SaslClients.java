package tributary.programs;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.security.auth.AuthenticateCallbackHandler;
import org.apache.kafka.common.security.auth.SaslExtensionsCallback;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerToken;
import org.apache.kafka.common.security.oauthbearer.OAuthBearerTokenCallback;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Java client authenticating with SASL through the gateway, then producing and consuming:
 *
 *   java -cp 'classes:lib/*' tributary.programs.SaslClients BOOTSTRAP MECHANISM USERNAME SECRET TOPIC RECORDS PAUSE_MS
 *
 * MECHANISM is SCRAM-SHA-256, SCRAM-SHA-512 (USERNAME and SECRET: a scoped token's id and the
 * token) or OAUTHBEARER (SECRET: the bearer token, given by a login callback handler, as an
 * application gets its token; USERNAME unused). The producer sends RECORDS records to partition
 * 0 of TOPIC one at a time, PAUSE_MS apart (so that a connection lives across a short SASL
 * session), then a consumer reads them back from the start. Prints one JSON line:
 *   {"acked":N,"consumed":N,"error":null}   or   {"acked":N,"consumed":0,"error":"the first failure"}
 */
public class SaslClients {
  /** OAUTHBEARER's token, read by the handler Kafka's login module instantiates. */
  static volatile String bearer = "";

  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String mechanism = args[1];
    String username = args[2];
    String secret = args[3];
    String topic = args[4];
    int records = Integer.parseInt(args[5]);
    long pauseMs = Long.parseLong(args[6]);
    bearer = secret;
    Properties common = new Properties();
    common.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    common.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_PLAINTEXT");
    common.put(SaslConfigs.SASL_MECHANISM, mechanism);
    if (mechanism.equals("OAUTHBEARER")) {
      common.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required;");
      common.put(SaslConfigs.SASL_LOGIN_CALLBACK_HANDLER_CLASS, TributaryTokenHandler.class);
    } else {
      common.put(SaslConfigs.SASL_JAAS_CONFIG, "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + username + "\" password=\"" + secret + "\";");
    }
    int acked = 0;
    int consumed = 0;
    String error = null;
    try {
      Properties producerConfig = new Properties();
      producerConfig.putAll(common);
      producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
      producerConfig.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000);
      producerConfig.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000);
      producerConfig.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 20_000);
      try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig)) {
        for (int n = 0; n < records; n++) {
          producer.send(new ProducerRecord<>(topic, 0, null, ("record-" + n).getBytes(StandardCharsets.UTF_8))).get();
          acked++;
          if (n + 1 < records) Thread.sleep(pauseMs);
        }
      }
      Properties consumerConfig = new Properties();
      consumerConfig.putAll(common);
      consumerConfig.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      consumerConfig.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
      consumerConfig.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig)) {
        TopicPartition partition = new TopicPartition(topic, 0);
        consumer.assign(List.of(partition));
        consumer.seekToBeginning(List.of(partition));
        long deadline = System.currentTimeMillis() + 30_000;
        while (consumed < records && System.currentTimeMillis() < deadline) {
          for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) consumed++;
        }
      }
    } catch (Exception failure) {
      StringBuilder chain = new StringBuilder();
      for (Throwable cause = failure; cause != null; cause = cause.getCause()) chain.append(chain.length() == 0 ? "" : " <- ").append(cause);
      error = chain.toString();
    }
    String shown = error == null ? "null" : "\"" + error.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", " ") + "\"";
    System.out.println("{\"acked\":" + acked + ",\"consumed\":" + consumed + ",\"error\":" + shown + "}");
  }

  /** Gives Kafka's OAUTHBEARER login module the Tributary token as the bearer, valid for an hour. */
  public static class TributaryTokenHandler implements AuthenticateCallbackHandler {
    @Override
    public void configure(Map<String, ?> configs, String saslMechanism, List<AppConfigurationEntry> jaasConfigEntries) {}

    @Override
    public void handle(Callback[] callbacks) throws UnsupportedCallbackException {
      for (Callback callback : callbacks) {
        if (callback instanceof OAuthBearerTokenCallback tokenCallback) {
          long now = System.currentTimeMillis();
          tokenCallback.token(new OAuthBearerToken() {
            public String value() { return bearer; }
            public Set<String> scope() { return Set.of(); }
            public long lifetimeMs() { return now + 3_600_000; }
            public String principalName() { return "tributary"; }
            public Long startTimeMs() { return now; }
          });
        } else if (!(callback instanceof SaslExtensionsCallback)) {
          throw new UnsupportedCallbackException(callback);
        }
      }
    }

    @Override
    public void close() {}
  }
}
