export { buildReport, competitionGrids, rankingBars } from './build.js';
export type { Grid, Report, ReportInput, ReportSection, ReportTable, ReportCompetition, ReportFact } from './build.js';
export { heatMapSvg, heatColor, scaleOf, compactNumber, escapeXml } from './heatmap.js';
export type { HeatMap, HeatScale } from './heatmap.js';
export { rankingBarsSvg } from './bars.js';
export type { RankingBar } from './bars.js';
export { galleryOverviewHtml, galleryLettersHtml, galleryMarkdown, bestTrial, averageKey } from './gallery.js';
export type { Gallery, GalleryTrial } from './gallery.js';
