/** Judges beyond the ViT, as pure functions: the tiered rubric, the ordering judge, agreement statistics. */
export * from './rubric.js';
export * from './rubric-answer.js';
export * from './rubric-prompt.js';
export * from './prompt-template.js';
export * from './order.js';
export * from './order-prompt.js';
export * from './order-metrics.js';
export * from './document-metrics.js';
export * from './schedule.js';
export * from './agreement.js';
export * from './judge-agreement.js';
export * from './bootstrap.js';
export * from './grid-view.js';
export * from './views.js';
export { stripThinking, keepRaw } from './answer-text.js';
export * from './report-section.js';
