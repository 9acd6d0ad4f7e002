/** Real node:http servers for the gateway's upstream tests: on 127.0.0.1 at a free port, each closed after every test. */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";

/** Registers the closing with this test file; `listen` starts one server, `servers` holds the open ones (first started first). */
export function localHttpServers(): { servers: Server[]; listen(handler: RequestListener): Promise<{ server: Server; url: string }> } {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
  return {
    servers,
    async listen(handler) {
      const server = createServer(handler);
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
    },
  };
}
