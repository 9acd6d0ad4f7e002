/**
 * The README's curl walkthrough, in one place: test/e2e/walkthrough.test.ts runs these exact
 * command lines with curl against a fresh `wrangler dev`, and the README shows
 * `renderWalkthrough()` (with `$BASE` = http://127.0.0.1:8787).
 *
 * `$BASE` is a textual placeholder, replaced before the line is read (also inside single
 * quotes), not a shell variable. Lines use only plain words and single quotes, with `\` at a
 * line's end to continue it, so bash, zsh and sh all read them the same way: the test refuses
 * anything else (an unquoted `?`, for one, is a glob that zsh rejects).
 */

export interface WalkthroughStep {
  /** What the test calls the step. */
  name: string;
  /** The README comment above the command; a step without one continues the previous group. */
  comment?: string;
  /** The command line as documented, with `$BASE` for the server's origin. */
  command: string;
}

export const walkthroughSteps = [
  {
    name: "create the topic",
    comment: "Create a topic with 3 partitions",
    command: String.raw`curl -s -X POST $BASE/v1/topics \
  -H 'content-type: application/json' \
  -d '{"name": "orders", "partitions": 3}'`,
  },
  {
    name: "produce three records",
    comment:
      "Produce: two records with key user-1 (Kafka's partitioner puts both on partition 2,\n" +
      "in order), the first with a header, and one record to partition 0",
    command: String.raw`curl -s -X POST $BASE/v1/topics/orders/records \
  -H 'content-type: application/json' \
  -d '{"records": [{"key": "user-1", "value": "hello", "headers": {"trace": "abc"}},
                   {"key": "user-1", "value": "world"},
                   {"value": "to partition 0", "partition": 0}]}'`,
  },
  {
    name: "fetch partition 2",
    comment: "Fetch from partition 2, offset 0 (add &waitMs=5000 to long-poll for new records)",
    command: String.raw`curl -s '$BASE/v1/topics/orders/partitions/2/records?offset=0'`,
  },
  {
    name: "earliest offset",
    comment: "Offsets: earliest, latest (the high watermark), or the first at or after a timestamp",
    command: String.raw`curl -s '$BASE/v1/topics/orders/partitions/2/offsets?at=earliest'`,
  },
  {
    name: "latest offset",
    command: String.raw`curl -s '$BASE/v1/topics/orders/partitions/2/offsets?at=latest'`,
  },
  {
    name: "describe the topic",
    comment: "Describe and list topics, then delete",
    command: String.raw`curl -s $BASE/v1/topics/orders`,
  },
  {
    name: "list topics",
    command: String.raw`curl -s $BASE/v1/topics`,
  },
  {
    name: "delete the topic",
    command: String.raw`curl -s -X DELETE $BASE/v1/topics/orders`,
  },
  {
    name: "describe the deleted topic",
    comment: "It is gone: 404 UNKNOWN_TOPIC_OR_PARTITION",
    command: String.raw`curl -s $BASE/v1/topics/orders`,
  },
] as const satisfies readonly WalkthroughStep[];

export type WalkthroughStepName = (typeof walkthroughSteps)[number]["name"];

/** A step's command line with `$BASE` replaced by the server's origin. */
export function commandLine(step: WalkthroughStep, base: string): string {
  return step.command.replaceAll("$BASE", base);
}

/** The walkthrough as the README's bash block shows it (without the fences). */
export function renderWalkthrough(base = "http://127.0.0.1:8787"): string {
  const lines: string[] = [];
  for (const step of walkthroughSteps as readonly WalkthroughStep[]) {
    if (step.comment !== undefined) {
      if (lines.length > 0) lines.push("");
      lines.push(...step.comment.split("\n").map((line) => `# ${line}`));
    }
    lines.push(commandLine(step, base));
  }
  return lines.join("\n");
}
