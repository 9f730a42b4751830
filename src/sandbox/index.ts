// The sandbox's public face: a local, seeded implementation of the whole Domain Intelligence Service.
export { startSandbox } from './server.js';
export { createDataset } from './dataset.js';
export { changesBetween } from './changes.js';
export type { ReleaseChange } from './types.js';
export { FIRST_RELEASE } from './release.js';
export { PACK_SIZE } from './meter.js';
export { DEFAULT_READINGS, READING_CHOICES, RESET_STYLES } from './readings.js';
export type { Readings, ResetStyle } from './readings.js';
export type {
  ChargeReport,
  FaultRates,
  Sandbox,
  SandboxInfo,
  SandboxOptions,
} from './types.js';
