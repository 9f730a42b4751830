// The sandbox's public face: a local, seeded implementation of the whole Domain Intelligence Service.
export { startSandbox } from './server.js';
export { createDataset, RELEASE_MONTH } from './dataset.js';
export { PACK_SIZE } from './meter.js';
export { KEY_PREFIX } from './keys.js';
export { ADMIN_PREFIX } from './admin.js';
export { FAULT_KINDS, RESET_STYLES } from './types.js';
export type {
  ChargeReport,
  Dataset,
  FaultRates,
  RequestLogEntry,
  ResetStyle,
  Sandbox,
  SandboxInfo,
  SandboxOptions,
} from './types.js';
