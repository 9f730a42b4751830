// Version 4 of the schema: the rates a run kept unconfirmed (store/contract.ts LearnedRate: a window one reset
// bounded below, the run stopped before a second measured it), beside the confirmed ones of learned_rate. An
// account has at most one of each; the confirmed one is read first, and keeping it ends the other.

/** The unconfirmed rates' table in schema `s`. */
export const boundV4Schema = (s: string): string => `
  CREATE TABLE ${s}.learned_bound (
    account    text   PRIMARY KEY,
    requests   bigint NOT NULL CHECK (requests > 0),
    window_ms  bigint NOT NULL CHECK (window_ms > 0),
    learned_at bigint NOT NULL
  );
`;
