// Types for the one part of unzipper 0.10 (exceljs's own ZIP reader) that workbook-entries.ts uses: its
// streaming parser, whose readable side gives the ZIP's entries in stored order.
declare module 'unzipper' {
  import type { Duplex } from 'node:stream';
  const unzipper: { Parse(options: { forceStream: true }): Duplex };
  export default unzipper;
}
