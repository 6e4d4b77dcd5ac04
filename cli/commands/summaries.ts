/**
 * What each command is for, in one line: `sbeval --help` lists them without loading the commands (a
 * command's module loads only when it runs: index.ts), and each command takes its description from here.
 */
export const COMMAND_SUMMARIES = {
  extract: 'raw → intermediate: extract the drop calls of every response, exactly as the official code-extraction-script',
  convert: 'intermediate → levels: drop every program on the 20×16 grid and write the level XML, byte-identical to the official converter',
  qualify: 'check 2023 prompts against the ChatGPT4PCG rules: ≤ 900 words (words-count@2.0.2), allowed characters, an <OBJECT> token',
  simulate: 'levels → stability + images: the Science Birds evaluator (stability of up to 3 trials, black-on-white image), headless',
  level: 'simulate one level and print its blocks, moving blocks and stability score',
  model: 'Convert or fetch the ViT classifier used by `sbeval similarity`.',
  similarity:
    'Classify every image of <root>/<team>/images/<C>/ (except *_raw.png) with the ViT and write <team>/similarity/<C>.json ' +
    'in the official format (2025 rules add cls_embedding). Resumable; identical images are inferred once.',
  diversity:
    'Compute <team>/diversity/<C>.json from <team>/similarity/<C>.json as the official diversity script does: cosine distance ' +
    '(scipy 1.12) over every pair of trials, divided by N(N+1)/2 − N. 2024 rules use the 26 softmax values, 2025 the CLS embedding.',
  generate: 'submission × models × letters × trials → raw LLM responses through Ollama or an OpenAI-style API (official limits, resumable, several hosts)',
  score: 'Official weights, scores and ranks from <root>/<team>/{stability,similarity,diversity}/<C>.json into <root>/result/',
  view: 'serve the frame-by-frame viewer for a trace, a level, or a competition folder, and print its URL',
  play: 'the evaluator in a browser tab: paste a response, a drop program or a level, see it fall, its stability, image and letter probabilities',
  publish: 'a scored competition as a static site: the ranking, every level at a glance, a page per trial replaying its level in the browser',
  explain: 'why a level collapsed: first mover and reason, order of failure, contacts, deaths, per-block displacement over time',
  record: 'simulate every level under a folder once and keep each run as a trace: a corpus for sbeval verify',
  verify: 're-run recorded levels and compare with their traces: identical / within tolerance / diverged, first divergence, verdict changes',
  engine: 'run the headless engine as a worker that dials an orchestrator endpoint and simulates the levels it is handed',
  unity: 'the Science Birds Unity build as an engine: install the plugin, calibrate it, launch instances',
  run: 'Evaluate a whole competition folder: generate (when configured) → extract → convert → simulate → similarity → diversity → score, resumable',
  judge: "LLM judges beyond the ViT: a tiered rubric per level, an ordering of the teams' levels",
  survey: 'human ratings of the levels: build a survey, invite raters, serve it to them, collect the answers',
  check: 'Say whether <root>/result/ still describes the folder (result/manifest.json against every input file), and what changed',
} as const;

export type CommandName = keyof typeof COMMAND_SUMMARIES;
