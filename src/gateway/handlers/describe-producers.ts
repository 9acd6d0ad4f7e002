/**
 * DescribeProducers (Kafka's API 61, KIP-664; the Java Admin's describeProducers,
 * `kafka-transactions.sh describe-producers`): each partition's active producers from
 * `GET /v1/topics/{topic}/partitions/{p}/producers` (docs/api.md), through the connection's
 * credentials, so `describe` on the topic applies as Kafka's ACL does. Each partition answers
 * on its own: a refused, missing or unreachable one carries its code and message.
 */
import { TributaryError } from "../../errors.ts";
import type { PartitionProducer } from "../../client/index.ts";
import type { GatewayRequestContext } from "../handler-types.ts";
import { kafkaErrorCode, kafkaErrors } from "../kafka-errors.ts";

interface DescribeProducersRequest {
  topics: { name: string; partitionIndexes: number[] }[];
}

async function describePartition(context: GatewayRequestContext, topic: string, partitionIndex: number) {
  try {
    const producers: PartitionProducer[] = await context.tributary.admin().transactions.describeProducers(topic, partitionIndex);
    return {
      partitionIndex,
      errorCode: kafkaErrors.NONE,
      errorMessage: null,
      activeProducers: producers.map((producer) => ({
        producerId: BigInt(producer.producerId),
        producerEpoch: producer.producerEpoch,
        lastSequence: producer.lastSequence,
        lastTimestamp: BigInt(producer.lastTimestamp),
        coordinatorEpoch: producer.coordinatorEpoch,
        currentTxnStartOffset: BigInt(producer.currentTxnStartOffset),
      })),
    };
  } catch (error) {
    const known = error instanceof TributaryError;
    return { partitionIndex, errorCode: known ? kafkaErrorCode(error) : kafkaErrors.UNKNOWN_SERVER_ERROR, errorMessage: known ? error.message : null, activeProducers: [] };
  }
}

export async function describeProducers(request: DescribeProducersRequest, context: GatewayRequestContext): Promise<Record<string, unknown>> {
  const topics = await Promise.all(
    request.topics.map(async ({ name, partitionIndexes }) => ({
      name,
      partitions: await Promise.all(partitionIndexes.map((partitionIndex) => describePartition(context, name, partitionIndex))),
    })),
  );
  return { throttleTimeMs: 0, topics };
}
