/**
 * A line chart of counts per day (uPlot: canvas, small). The chart is one image to assistive
 * technology, named by its caption; the numbers are always also in a table next to it.
 */
import { useEffect, useRef } from 'preact/hooks';
import type uPlot from 'uplot';
import { settleNavigatorLanguage } from './locale';

/** One line: its name and a value per day. */
export interface ChartSeries {
  readonly label: string;
  readonly values: readonly number[];
}

/** Colours of the lines, in order; each has at least 3:1 contrast on the white background (WCAG 1.4.11). */
const SERIES_COLOURS = ['#1f5fbf', '#1d7a3a', '#8a5a00', '#6b3fa0', '#b3261e', '#44546a'];

/** Props of {@link DayChart}. */
export interface DayChartProps {
  /** `yyyy-mm-dd` days, the x axis. */
  readonly days: readonly string[];
  readonly series: readonly ChartSeries[];
  /** What the chart shows, read out for the canvas. */
  readonly caption: string;
}

/** Draw the chart into `element`, redrawn at its width when that changes; returns how to take it down. */
function draw(Plot: typeof uPlot, element: HTMLElement, days: readonly string[], series: readonly ChartSeries[]): () => void {
  const data: uPlot.AlignedData = [days.map((d) => Date.parse(`${d}T00:00:00Z`) / 1000), ...series.map((s) => [...s.values])];
  const chart = new Plot(
    {
      width: Math.max(element.clientWidth, 280),
      height: 240,
      legend: { show: false },
      cursor: { show: true, points: { show: false } },
      scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(max, 1)] } },
      axes: [{}, { size: 50 }],
      series: [{}, ...series.map((s, i) => ({ label: s.label, stroke: SERIES_COLOURS[i % SERIES_COLOURS.length], width: 2 }))],
    },
    data,
    element,
  );
  const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(element.clientWidth, 280), height: 240 }));
  resize.observe(element);
  return () => {
    resize.disconnect();
    chart.destroy();
  };
}

/** The chart, as wide as its container (and redrawn when that changes). */
export function DayChart({ days, series, caption }: DayChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    let stop: (() => void) | undefined;
    let gone = false;
    // uPlot is loaded with the first chart (its own chunk): the other pages never download it. It
    // reads navigator.language as it loads, which must then be a valid tag (parts/locale.ts).
    settleNavigatorLanguage();
    void import('uplot').then(({ default: Plot }) => {
      if (!gone) stop = draw(Plot, box.current!, days, series);
    });
    return () => {
      gone = true;
      stop?.();
    };
  }, [days, series, caption]);
  return (
    <figure class="chart">
      <div ref={box} role="img" aria-label={caption} />
      <figcaption>
        {caption}
        <ul class="legend">
          {series.map((s, i) => (
            <li key={s.label}>
              <span class={`swatch s${i % SERIES_COLOURS.length}`} aria-hidden="true" />
              {s.label}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
