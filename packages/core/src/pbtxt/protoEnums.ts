/**
 * The enums of Triton's `model_config.proto` (from the `common` repository's `protobuf/model_config.proto`), by
 * (dotted) name: value names indexed by their number (all Triton enums are dense from 0).
 */
export const ENUMS: Record<string, readonly string[]> = {
  DataType: [
    'TYPE_INVALID',
    'TYPE_BOOL',
    'TYPE_UINT8',
    'TYPE_UINT16',
    'TYPE_UINT32',
    'TYPE_UINT64',
    'TYPE_INT8',
    'TYPE_INT16',
    'TYPE_INT32',
    'TYPE_INT64',
    'TYPE_FP16',
    'TYPE_FP32',
    'TYPE_FP64',
    'TYPE_STRING',
    'TYPE_BF16',
  ],
  'ModelInstanceGroup.Kind': ['KIND_AUTO', 'KIND_GPU', 'KIND_CPU', 'KIND_MODEL'],
  'ModelInstanceGroup.SecondaryDevice.SecondaryDeviceKind': ['KIND_NVDLA'],
  'ModelInput.Format': ['FORMAT_NONE', 'FORMAT_NHWC', 'FORMAT_NCHW'],
  'BatchInput.Kind': [
    'BATCH_ELEMENT_COUNT',
    'BATCH_ACCUMULATED_ELEMENT_COUNT',
    'BATCH_ACCUMULATED_ELEMENT_COUNT_WITH_ZERO',
    'BATCH_MAX_ELEMENT_COUNT_AS_SHAPE',
    'BATCH_ITEM_SHAPE',
    'BATCH_ITEM_SHAPE_FLATTEN',
  ],
  'BatchOutput.Kind': ['BATCH_SCATTER_WITH_INPUT_SHAPE'],
  'ModelOptimizationPolicy.ModelPriority': ['PRIORITY_DEFAULT', 'PRIORITY_MAX', 'PRIORITY_MIN'],
  'ModelQueuePolicy.TimeoutAction': ['REJECT', 'DELAY'],
  'ModelSequenceBatching.Control.Kind': [
    'CONTROL_SEQUENCE_START',
    'CONTROL_SEQUENCE_READY',
    'CONTROL_SEQUENCE_END',
    'CONTROL_SEQUENCE_CORRID',
  ],
};
