export { buildReport, competitionGrids } from './build.js';
export type { Report, ReportInput, ReportSection, ReportTable, ReportCompetition, ReportFact } from './build.js';
export { heatMapSvg, escapeXml } from './heatmap.js';
export type { HeatMap } from './heatmap.js';
export { rankingBarsSvg } from './bars.js';
export type { RankingBar } from './bars.js';
export { averageKey } from './gallery.js';
export type { Gallery, GalleryTrial } from './gallery.js';
