// What one option of the table is (table.ts), apart from the table so the parts spread into it (catalog.ts,
// changes.ts, progress.ts, sandbox.ts, summarize.ts) need nothing from it.
import type { SettingKey } from '../../config/settings-table.js';

/** The commands that take options of their own, by path; every command takes the global options. */
export type CommandPath =
  | 'lookup'
  | 'batch'
  | 'traffic'
  | 'employees'
  | 'tech'
  | 'catalog'
  | 'cache clear'
  | 'cache prune'
  | 'sandbox'
  | 'completion'
  | 'changes'
  | 'summarize';
/** One option. `default` is applied by commander, except for a setting, which the config resolver applies. */
export interface OptionRow {
  /** As commander reads them: short and long flag, and `<argument>` when the option takes a value. */
  flags: string;
  help: string;
  commands: 'global' | readonly CommandPath[];
  parse?: (value: string) => unknown;
  choices?: readonly string[];
  default?: unknown;
  /** The default as help writes it, when not as commander would (a number of ms as "30d"). */
  show?: (value: number) => string;
  /** The stored setting (`config set <long flag>`), between the default and the environment. */
  setting?: SettingKey;
  env?: `DOMAIN_INTEL_${string}`;
  hidden?: true;
  /** Where one command words it differently or offers fewer choices. */
  per?: Partial<Record<CommandPath, { help?: string; choices?: readonly string[] }>>;
}
