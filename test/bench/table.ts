/** Plain or Markdown tables for the benchmark's report. */

/** Rows under headers: padded columns, or a Markdown table. */
export function table(markdown: boolean, headers: readonly string[], rows: readonly (readonly string[])[]): string[] {
  if (markdown) {
    const line = (cells: readonly string[]) => `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
    return [line(headers), line(headers.map(() => '---')), ...rows.map(line)];
  }
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i > 0 && /^[-$\d.]/.test(c) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
}
