// What -o's name asks for, one rule for every command that writes rows (batch, lookup, traffic, employees):
// .xlsx a workbook, .json a JSON array, .ndjson or .jsonl NDJSON, anything else CSV. --format, given, wins.
// Not .xlsm, which is read as a workbook: Excel refuses an .xlsm holding no macro parts, which is what we
// would write.

export type NamedFormat = 'csv' | 'json' | 'ndjson' | 'xlsx';

/** The format -o FILE's name picks (a tryout found out.json holding CSV, and a.csv holding JSON). */
export function formatByName(output: string): NamedFormat {
  const ext = /\.([a-z]+)$/i.exec(output)?.[1]?.toLowerCase();
  return ext === 'xlsx' ? 'xlsx' : ext === 'json' ? 'json' : ext === 'ndjson' || ext === 'jsonl' ? 'ndjson' : 'csv';
}
