import { markdownText } from '../../scoring/formats/text-escape.js';
import type { ReportSection } from '../../scoring/report/build.js';
import { escapeXml } from '../../scoring/report/index.js';
import { FRAGILE_AGREEMENT, formatMovingRange, formatStableShare, ROBUSTNESS_POSITION_NOISE } from '../../scoring/robustness.js';
import type { LevelRobustnessResult } from '../stages/robustness.js';

/**
 * The report's "Knife-edge verdicts" section (`run --robustness N`): how the perturbed runs were made,
 * how many verdicts are fragile, and one row per fragile level. Official verdicts are not changed.
 * Added through the report's extra sections (scoring/report/build.ts); team names are text from outside,
 * escaped for Markdown and HTML (scoring/formats/text-escape.ts, `escapeXml`).
 */
export function robustnessSection(results: readonly LevelRobustnessResult[], runs: number): ReportSection {
  const fragile = results.filter((r) => r.robustness.fragile);
  const withModel = results.some((r) => r.model !== undefined);
  const intro =
    `Every level with a verdict was simulated ${runs} more times, one trial each, under perturbations Unity's own runs differ by ` +
    `(creation order shuffled, positions moved by up to ${ROBUSTNESS_POSITION_NOISE} units, the solver's warm start on and off). ` +
    `A verdict is fragile when fewer than ${Math.round(FRAGILE_AGREEMENT * 100)}% of the runs agree with it. ` +
    `${fragile.length} of ${results.length} verdicts are fragile. The official verdicts and scores are unchanged; ` +
    'every level is listed in `result/robustness.csv` and flagged in `result/trials.csv`.';
  const header = [...(withModel ? ['model'] : []), 'team', 'letter', 'level', 'official verdict', 'stable in', 'moving objects'];
  const rows = fragile.map((r) => [
    ...(withModel ? [r.model ?? ''] : []),
    r.team,
    r.character,
    r.base,
    r.robustness.officialStable ? 'stable' : `moving (score ${r.officialScore})`,
    formatStableShare(r.robustness),
    formatMovingRange(r.robustness),
  ]);
  const markdown = [
    intro,
    ...(rows.length === 0
      ? ['', 'None: every verdict held in at least 90% of the perturbed runs.']
      : ['', `| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.map(markdownText).join(' | ')} |`)]),
  ].join('\n');
  const html = [
    `<p>${escapeXml(intro).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`,
    rows.length === 0
      ? '<p>None: every verdict held in at least 90% of the perturbed runs.</p>'
      : `<table class="fragile">\n<tr>${header.map((h) => `<th>${escapeXml(h)}</th>`).join('')}</tr>\n${rows.map((row) => `<tr>${row.map((c) => `<td>${escapeXml(c)}</td>`).join('')}</tr>`).join('\n')}\n</table>`,
  ].join('\n');
  return { id: 'knife-edge-verdicts', title: 'Knife-edge verdicts', markdown, html };
}
