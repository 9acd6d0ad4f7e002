package tributary.programs;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Many short-lived Java producers with the client's defaults (idempotent, acks=all, up to 5
 * requests in flight on one connection), each writing numbered records to one topic and closing:
 *
 *   java -cp 'classes:lib/*' tributary.programs.NumberedProducers BOOTSTRAP TOPIC PRODUCERS RECORDS_EACH AT_ONCE VALUE_BYTES
 *
 * A record's value is "P:N:" (producer, number, zero-padded) filled with '.' to VALUE_BYTES.
 * Prints one JSON line per producer once it closed:
 *   {"producer":P,"acked":[numbers acknowledged],"failed":[numbers whose send failed],"errors":[first messages]}
 */
public class NumberedProducers {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0];
    String topic = args[1];
    int producers = Integer.parseInt(args[2]);
    int recordsEach = Integer.parseInt(args[3]);
    int atOnce = Integer.parseInt(args[4]);
    int valueBytes = Integer.parseInt(args[5]);
    ExecutorService pool = Executors.newFixedThreadPool(atOnce);
    List<java.util.concurrent.Future<String>> results = new ArrayList<>();
    for (int p = 0; p < producers; p++) {
      final int producer = p;
      results.add(pool.submit(() -> produce(bootstrap, topic, producer, recordsEach, valueBytes)));
    }
    for (java.util.concurrent.Future<String> result : results) System.out.println(result.get());
    pool.shutdown();
    pool.awaitTermination(1, TimeUnit.MINUTES);
  }

  static String produce(String bootstrap, String topic, int producer, int recordsEach, int valueBytes) {
    Properties config = new Properties();
    config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    config.put(ProducerConfig.CLIENT_ID_CONFIG, "numbered-" + producer);
    config.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    config.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
    boolean[] acked = new boolean[recordsEach];
    boolean[] failed = new boolean[recordsEach];
    List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
    try (KafkaProducer<byte[], byte[]> kafka = new KafkaProducer<>(config)) {
      for (int n = 0; n < recordsEach; n++) {
        final int number = n;
        kafka.send(new ProducerRecord<>(topic, value(producer, number, valueBytes)), (metadata, error) -> {
          synchronized (acked) {
            if (error == null) acked[number] = true;
            else {
              failed[number] = true;
              if (errors.size() < 3) errors.add(error.toString());
            }
          }
        });
      }
      kafka.flush();
    }
    StringBuilder json = new StringBuilder("{\"producer\":").append(producer).append(",\"acked\":[");
    synchronized (acked) {
      appendNumbers(json, acked);
      json.append("],\"failed\":[");
      appendNumbers(json, failed);
    }
    json.append("],\"errors\":[");
    for (int i = 0; i < errors.size(); i++) json.append(i == 0 ? "" : ",").append('"').append(errors.get(i).replace("\\", "\\\\").replace("\"", "\\\"")).append('"');
    return json.append("]}").toString();
  }

  static byte[] value(int producer, int number, int valueBytes) {
    StringBuilder text = new StringBuilder(String.format("%04d:%07d:", producer, number));
    while (text.length() < valueBytes) text.append('.');
    return text.toString().getBytes(StandardCharsets.US_ASCII);
  }

  static void appendNumbers(StringBuilder json, boolean[] marked) {
    boolean first = true;
    for (int n = 0; n < marked.length; n++) {
      if (!marked[n]) continue;
      json.append(first ? "" : ",").append(n);
      first = false;
    }
  }
}
