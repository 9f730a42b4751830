// How a summary's shares are written, in the terminal's bars and the HTML report alike: the same host share
// must read the same in both (the bars used toFixed, which rounds 7.25% down to 7.2, and the report up).

/** A share 0..1 as a percentage with one decimal, halves rounded up: 0.0725 -> '7.3%' (toFixed gives '7.2'). */
export function percent(share: number): string {
  return `${(Math.round(share * 1000) / 10).toFixed(1)}%`;
}
