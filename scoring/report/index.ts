export type { RankingBar } from './bars.js';
export { rankingBarsSvg } from './bars.js';
export type { Report, ReportCompetition, ReportFact, ReportInput, ReportSection, ReportTable } from './build.js';
export { buildReport, competitionGrids } from './build.js';
export type { Gallery, GalleryTrial } from './gallery.js';
export { averageKey } from './gallery.js';
export type { HeatMap } from './heatmap.js';
export { escapeXml, heatMapSvg } from './heatmap.js';
