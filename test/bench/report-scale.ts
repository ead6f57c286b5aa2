/**
 * The report's sections of the round-trip latency mode and the scale scenarios: readable tables
 * and their part of the JSON line (`latency_rtt_p50`, `latency_rtt_p99`, `scale`).
 */
import type { RttFigures } from './rtt-latency.js';
import type { ScenarioResult } from './scale/scenario.js';
import { SCALE } from './scale/run-scale.js';
import { round } from './stats.js';
import { table } from './table.js';

/** Round-trip latency per operation, in RTTs. */
export function renderRtt(r: RttFigures, markdown: boolean): string[] {
  return [
    ...heading(
      `Latency in round trips (every DynamoDB call pays a modelled RTT of ${r.rttMs} ms; p50 and p99 divided by the RTT)`,
      markdown,
    ),
    ...table(
      markdown,
      ['operation', 'p50 / RTT', 'p99 / RTT'],
      [...r.byName].map(([name, f]) => [name, f.p50.toFixed(2), f.p99.toFixed(2)]),
    ),
  ];
}

/** One row per scale scenario. */
export function renderScale(results: readonly ScenarioResult[], markdown: boolean): string[] {
  return [
    ...heading(
      `Scale scenarios (DynamoDB partitions and loads divided by F = ${SCALE.factor}; service clock A× real time; rates quoted unscaled)`,
      markdown,
    ),
    ...table(
      markdown,
      ['scenario', 'A', 'offered /s', 'achieved /s', 'offered', 'admitted', 'refused (429)', 'throttled calls', '5xx', 'detail'],
      results.map((s) => [
        s.name,
        String(s.accel),
        String(s.offeredRate),
        s.achievedRate.toFixed(0),
        String(s.offered),
        String(s.admitted),
        String(s.refused),
        String(s.throttled),
        String(s.errors5xx),
        s.detail,
      ]),
    ),
    '',
    ...table(
      markdown,
      ['scenario', 'throttled DynamoDB calls by table[/index] and operation'],
      results.map((s) => [
        s.name,
        Object.entries(s.throttledBy)
          .map(([k, v]) => `${k}: ${v}`)
          .join('; ') || 'none',
      ]),
    ),
  ];
}

/** The JSON line's part of these sections. */
export function rttScaleJson(rtt: RttFigures | undefined, scale: readonly ScenarioResult[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (rtt) {
    out.latency_rtt_ms = rtt.rttMs;
    out.latency_rtt_p50 = Object.fromEntries([...rtt.byName].map(([k, f]) => [k, round(f.p50)]));
    out.latency_rtt_p99 = Object.fromEntries([...rtt.byName].map(([k, f]) => [k, round(f.p99)]));
  }
  if (scale) {
    out.scale = {
      factor: SCALE.factor,
      ...Object.fromEntries(
        scale.map((s) => [
          s.name,
          {
            accel: s.accel,
            offered: s.offered,
            admitted: s.admitted,
            refused: s.refused,
            throttled: s.throttled,
            errors_5xx: s.errors5xx,
            other_4xx: s.other,
            throttled_by: s.throttledBy,
            met: s.checks.every((c) => c.met),
          },
        ]),
      ),
    };
  }
  return out;
}

function heading(title: string, markdown: boolean): string[] {
  return ['', markdown ? `### ${title}` : `== ${title} ==`, ''];
}
