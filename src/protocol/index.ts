/**
 * The package's `./protocol` entry: Kafka's RecordBatch v2 codec and default partitioner, and
 * the binary transport's media type, for clients that build or read batches themselves. No
 * zod and no I/O: runs in Workers, Node and browsers.
 */
export {
  batchByteLength,
  BatchFormatError,
  batchHeaderBytes,
  batchMagic,
  compressionMask,
  controlFlag,
  encodedRecordSize,
  encodeRecordBatch,
  readBatchHeader,
  setBaseOffset,
  setPartitionLeaderEpoch,
  splitBatches,
  stampLogAppendTime,
  timestampTypeLogAppendTime,
  transactionalFlag,
  verifyBatchCrc,
  type BatchHeader,
  type DecodedRecord,
  type EncodeOptions,
  type RecordHeader,
  type RecordInput,
} from "./record-batch.ts";
export { decodeRecordBatch, type DecodeOptions } from "./record-batch-decode.ts";
export { batchCodec, compressBatch, recompressBatch } from "./record-batch-compression.ts";
export { compressionCodecs, type CompressionCodec } from "./compression/codecs.ts";
export { CompressionError, type CompressionFailure } from "./compression/compression-error.ts";
export { murmur2, partitionForKey, stickyPartition } from "./partitioner.ts";
export { crc32c } from "./crc32c.ts";
export { fetchHeaders, isRecordBatchType, recordBatchContentType } from "./content-types.ts";
