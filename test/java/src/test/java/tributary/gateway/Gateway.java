package tributary.gateway;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;

/**
 * Where the tests find Tributary: the gateway's bootstrap address (`-Dtributary.bootstrap`) and
 * wrangler dev's HTTP URL (`-Dtributary.http`), as the e2e layer passes them.
 */
final class Gateway {
  private Gateway() {}

  static String bootstrap() {
    return required("tributary.bootstrap");
  }

  static String http() {
    return required("tributary.http");
  }

  static Admin admin() {
    Properties config = new Properties();
    config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
    return Admin.create(config);
  }

  /** GET of a path of the HTTP API, its body as text (a status other than 200 fails). */
  static String get(String path) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient()
        .send(HttpRequest.newBuilder(URI.create(http() + path)).GET().build(), HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) throw new IllegalStateException("GET " + path + ": " + response.statusCode() + " " + response.body());
    return response.body();
  }

  /** POST of a JSON body to a path of the HTTP API, its status. */
  static int post(String path, String json) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create(http() + path)).header("content-type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
        HttpResponse.BodyHandlers.ofString());
    return response.statusCode();
  }

  /** A topic name no other test (nor an earlier run against the same server) took. */
  static String unique(String prefix) {
    return prefix + "-" + Long.toString(System.nanoTime(), 36);
  }

  private static String required(String name) {
    String value = System.getProperty(name);
    if (value == null || value.isEmpty()) throw new IllegalStateException("system property " + name + " is not set");
    return value;
  }
}
