/** Where the protocol is served on the Worker (docs/durable-streams.md): `/ds/<stream path>`. */
export const durableStreamsBasePath = "/ds";
