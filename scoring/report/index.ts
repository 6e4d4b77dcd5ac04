export { buildReport, competitionGrids } from './build.js';
export type { Report, ReportInput, ReportSection, ReportTable, ReportCompetition } from './build.js';
export { heatMapSvg, heatColor, escapeXml } from './heatmap.js';
export type { HeatMap } from './heatmap.js';
