// The sandbox's public face: a local, seeded implementation of the whole Domain Intelligence Service.
export { startSandbox } from './server.js';
export { createDataset } from './dataset.js';
export { PACK_SIZE } from './meter.js';
export { RESET_STYLES } from './types.js';
export type {
  ChargeReport,
  FaultRates,
  ResetStyle,
  Sandbox,
  SandboxInfo,
  SandboxOptions,
} from './types.js';
