// "Did you mean": the candidates nearest to a name by edit distance, case-insensitively.

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0] ?? 0;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j] ?? 0;
      prev[j] = Math.min(up + 1, (prev[j - 1] ?? 0) + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length] ?? 0;
}

/**
 * The one candidate equal to `name` ignoring case (`wordpress` for WordPress), or undefined when none is or
 * several are: only an unambiguous spelling may be taken in the user's stead.
 */
export function caseMatch(name: string, candidates: readonly string[]): string | undefined {
  const q = name.toLowerCase();
  const hits = [...new Set(candidates.filter((c) => c.toLowerCase() === q))];
  return hits.length === 1 ? hits[0] : undefined;
}

/** Up to `n` candidates close to `name` (a substring match counts as close), nearest first. */
export function closest(name: string, candidates: readonly string[], n = 3): string[] {
  const q = name.toLowerCase();
  const limit = Math.max(2, Math.floor(q.length / 3));
  return candidates
    .map((c) => {
      const lc = c.toLowerCase();
      const d = lc === q ? 0 : lc.includes(q) || q.includes(lc) ? 1 : distance(q, lc);
      return { c, d };
    })
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || a.c.localeCompare(b.c))
    .slice(0, n)
    .map((x) => x.c);
}
