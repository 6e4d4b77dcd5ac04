/** Judges beyond the ViT, as pure functions: the tiered rubric, the ordering judge, agreement statistics. */

export * from './agreement.js';
export { keepRaw, stripThinking } from './answer-text.js';
export * from './bootstrap.js';
export * from './document-metrics.js';
export * from './grid-view.js';
export * from './judge-agreement.js';
export * from './order.js';
export * from './order-metrics.js';
export * from './order-prompt.js';
export * from './prompt-template.js';
export * from './report-section.js';
export * from './rubric.js';
export * from './rubric-answer.js';
export * from './rubric-prompt.js';
export * from './schedule.js';
export * from './views.js';
