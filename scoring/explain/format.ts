import type { BodyReport, Explanation } from '../explain.js';
import { describeSteps } from '../stability.js';

/**
 * The readable timeline of an explanation (what `sbeval explain` prints): verdict, first mover, order
 * of failure, events in time order, and a displacement table per body at whole seconds.
 */

interface FormatOptions {
  /** At most this many timeline lines (the rest is counted); default 80. */
  maxTimeline?: number;
}

const pad = (s: string, n: number): string => (s.length >= n ? s : s + ' '.repeat(n - s.length));
const lpad = (s: string, n: number): string => (s.length >= n ? s : ' '.repeat(n - s.length) + s);
const seconds = (step: number, dt: number): string => `${(step * dt).toFixed(2)} s`;
const name = (b: Pick<BodyReport, 'id' | 'type'>): string => `#${b.id} ${b.type}`;

export function formatExplanation(e: Explanation, options: FormatOptions = {}): string {
  const maxTimeline = options.maxTimeline ?? 80;
  const byId = new Map(e.bodies.map((b) => [b.id, b]));
  const lines: string[] = [];
  const title = e.levelId ?? 'level';
  lines.push(`${title}: ${e.bodies.length} bodies (${e.counted} counted), steps of ${e.dt} s; ${describeSteps(e, e.dt)}`);
  const score = e.score.toFixed(4);
  lines.push(`Verdict: ${e.moving} of ${e.counted} moved (centre displacement ≥ ${e.threshold}) → stability ${score}`);

  if (e.firstMover === null) {
    lines.push('First mover: none — nothing passed the threshold or died.');
  } else {
    const first = byId.get(e.firstMover)!;
    lines.push(`First mover: ${name(first)} at step ${first.onsetStep} (${seconds(first.onsetStep ?? 0, e.dt)})`);
    lines.push(`  why: ${first.reason?.text ?? 'unknown'}`);
    if (e.origin !== null && e.origin !== e.firstMover) {
      const origin = byId.get(e.origin)!;
      lines.push(`  the chain starts at ${name(origin)}: ${origin.reason?.text ?? 'unknown'}`);
    }
  }

  if (e.failureOrder.length > 0) {
    lines.push('', 'Order of failure (first step past the threshold):');
    e.failureOrder.forEach((id, i) => {
      const b = byId.get(id)!;
      lines.push(
        `  ${lpad(String(i + 1), 2)}. ${pad(name(b), 16)} step ${lpad(String(b.crossStep), 3)} (${seconds(b.crossStep ?? 0, e.dt)})  ${pad(b.motion.kind, 9)} ${b.reason?.text ?? ''}`,
      );
    });
  }

  if (e.deaths.length > 0) {
    lines.push('', 'Deaths:');
    for (const d of e.deaths) {
      const b = byId.get(d.id)!;
      const removed = d.removedStep === null ? 'not removed within the window' : `removed at step ${d.removedStep}`;
      lines.push(
        `  ${pad(name(b), 16)} ${d.cause} at step ${d.step} (${seconds(d.step, e.dt)}), ${d.damage.toFixed(2)} damage in ${d.hits} hit(s), ${removed}`,
      );
    }
  }

  if (e.timeline.length > 0) {
    lines.push('', 'Timeline:');
    for (const entry of e.timeline.slice(0, maxTimeline)) {
      lines.push(`  ${lpad(seconds(entry.step, e.dt), 7)}  step ${lpad(String(entry.step), 3)}  ${entry.text}`);
    }
    if (e.timeline.length > maxTimeline) lines.push(`  … ${e.timeline.length - maxTimeline} more (use --json for all)`);
  }

  // Displacement at whole seconds, from the sampled series.
  const perSecond = Math.max(1, Math.round(1 / (e.dt * e.sampleEvery)));
  const marks: number[] = [];
  for (let i = 0; i * e.sampleEvery <= e.windowEnd; i += perSecond) marks.push(i);
  lines.push(
    '',
    `Displacement from the start positions (step ${e.windowStart}) at each second (${marks.map((i) => `${Math.round(i * e.sampleEvery * e.dt)}`).join(' ')} s):`,
  );
  for (const b of e.bodies) {
    const values = marks.map((i) => {
      const v = b.displacement[Math.min(i, b.displacement.length - 1)] ?? 0;
      return lpad(v.toFixed(2), 5);
    });
    const verdict = !b.counted ? 'not counted' : b.moved ? `MOVED ${b.finalDisplacement.toFixed(3)}` : `still ${b.finalDisplacement.toFixed(3)}`;
    const died = b.deathStep !== null ? `, died step ${b.deathStep}` : '';
    lines.push(`  ${pad(name(b), 16)} ${values.join(' ')}  ${verdict}${died}`);
  }
  return `${lines.join('\n')}\n`;
}
