/**
 * The library entry: `import { ... } from 'sbeval'`.
 */

export type { EndpointOptions, RejectedConnection } from './bridge/endpoint.js';
export { EngineEndpoint } from './bridge/endpoint.js';
export type { CreateEnginesOptions, EngineKind } from './bridge/engine-kinds.js';
export { ENGINE_KINDS } from './bridge/engine-kinds.js';
export { createEngines, defaultEngineCount } from './bridge/engines.js';
// Headless engine: the evaluator's physics, damage, stability and image without Unity.
/** Engines: in-process, worker threads, by kind; the physics settings (one frozen object each). */
export { HEADLESS_ENGINE_VERSION, HeadlessEngine, headlessDigest } from './bridge/headless/engine.js';
export { LevelLoadError } from './bridge/headless/load-level.js';
export { decodePng, encodePng } from './bridge/headless/png.js';
export type { TrialImages, TrialStream } from './bridge/headless/run.js';
/** One trial in this thread: frame stream + events + the rendered images (RGBA), and PNG encoding. */
export { levelSeed, simulateTrial } from './bridge/headless/run.js';
export { BOX2D_CONSTANTS, WORLD_SETTINGS } from './bridge/headless/settings.js';
export { WorkerEngine } from './bridge/headless/worker-engine.js';
export { memorySink } from './bridge/memory-sink.js';
export type { Capabilities, Compatibility, ErrorFault, ErrorPhase, Message, MessageType, RunSummary, Side } from './bridge/protocol.js';
// The bridge: protocol, endpoint, remote engines, workers, fleets, traces (bridge/PROTOCOL.md).
export {
  CLOSE,
  checkCompatibility,
  DEFAULT_MAX_MESSAGE_BYTES,
  decodeMessage,
  encodeMessage,
  MESSAGE_TYPES,
  PROTOCOL_VERSION,
  ProtocolError,
  SENDERS,
} from './bridge/protocol.js';
export { EngineLostError, RemoteEngine, RemoteRunError } from './bridge/remote-engine.js';
export type { FleetOptions, InstanceInfo, InstanceLauncher, InstanceStatus, LaunchSpec } from './bridge/remote-fleet.js';
export { EngineFleet, FleetEngine } from './bridge/remote-fleet.js';
export type { UnityLaunchOptions } from './bridge/remote-launchers.js';
export { headlessWorkerLauncher, UNITY_ENTRY_METHOD, unityLauncher } from './bridge/remote-launchers.js';
export type { LoadedTrace, TraceHeader, TraceReadOptions, TraceRecord, TraceRecorderOptions, TraceStream } from './bridge/trace.js';
export {
  MAX_TRACE_BYTES,
  openTrace,
  readTrace,
  runRecorded,
  TRACE_FORMAT,
  TRACE_VERSION,
  TraceAssembler,
  TraceFormatError,
  TraceRecorder,
  TraceTooLargeError,
  teeSinks,
  traceFromBytes,
} from './bridge/trace.js';
export type { EvaluatorWindow } from './bridge/window.js';
export { evaluatorWindow, isReadStep, loopIterations, OFFICIAL_WINDOW, stepsToSimulate } from './bridge/window.js';
export type { WorkerOptions, WorkerResult } from './bridge/worker.js';
export { headlessCapabilities, runEngineWorker } from './bridge/worker.js';
export type { BlockSpec, BodySpec, Collider, MaterialSpec, PigSpec, Point, Size } from './levels/catalog.js';
export {
  BIRD_TYPES,
  BLOCK_BODY,
  BLOCK_TYPES,
  BLOCKS,
  blockSpec,
  DEFAULT_MATERIAL,
  isMaterial,
  LANDSCAPE,
  LAYERS,
  MATERIAL_LIFE_FACTOR,
  MATERIALS,
  PIG_TYPES,
  PIGS,
  PLATFORM,
  pigSpec,
  TNT,
} from './levels/catalog.js';
export type { DropFailure, DropResult, PlacedBlock, PlacedStructure } from './levels/drop.js';
/** The official 20×16 height-map drop with its three errors and the left shift; the placed grid as data. */
export {
  BLOCK_SHAPES,
  DropError,
  dropBlocks,
  GRID_HEIGHT,
  GRID_WIDTH,
  HEIGHT_BOUNDARY,
  structureToText,
  tryDropBlocks,
  UNKNOWN_BLOCK,
  WIDTH_BOUNDARY,
} from './levels/drop.js';
// Levels: response → drop program → grid drop → Science Birds XML, official-exact
// (chatgpt4pcg@1.4.1); a strict reader for any Science Birds level; the 2023 prompt rules.
/** Official code extraction: the drop calls of the last fenced block, or null (`Code not found.`). */
export { AB_DROP, assertFunctionName, CODE_NOT_FOUND, DROP_BLOCK, extractCode, lastFencedBlock } from './levels/extract.js';
export type { Level, LevelBlock, LevelCamera, LevelObject, LevelPig, LevelPlatform, LevelTnt, Material } from './levels/level.js';
export type { ConvertResult, LevelOptions, ResponseResult } from './levels/pipeline.js';
/** The two level stages composed: responseToLevel (extract + convert), convertProgram, programToXml. */
export { convertProgram, programToXml, responseToLevel } from './levels/pipeline.js';
export type { BlockId, DropCall } from './levels/program.js';
/** A drop program read line by line as the official converter reads it. */
export { parseDropProgram } from './levels/program.js';
export type { QualificationCheck, QualificationVerdict } from './levels/rules-2023.js';
/** 2023 prompt rules: words-count@2.0.2 word count, allowed characters, <OBJECT>, 900 words. */
export { containsDisallowedCharacters, countObjectTokens, countWords, disallowedCharacters, MAX_WORDS_2023, qualify } from './levels/rules-2023.js';
export type { LevelXmlResult, ReadLevelXmlOptions } from './levels/xml-read.js';
/** Strict Science Birds level reader: parseLevelXml throws LevelXmlError; readLevelXml also lists Unity quirks. */
export {
  DEFAULT_MAX_LEVEL_OBJECTS,
  DEFAULT_MAX_LEVEL_SIZE,
  DEFAULT_MAX_MAGNITUDE,
  LevelXmlError,
  MAX_LEVEL_WIDTH,
  parseLevelXml,
  readLevelXml,
} from './levels/xml-read.js';
export type { LevelFrame } from './levels/xml-write.js';
/** Byte-identical official XML (exact 1e-5 integer arithmetic), the same level as data, and any Level as XML. */
export { blockCentreUnits, formatUnits, GRID_WORLD, levelFrame, levelToXml, structureToLevel, structureToXml } from './levels/xml-write.js';
export type { ConfigFile } from './llm/config.js';
export { CONFIG_SCHEMA as configSchema, loadConfigFile, parseConfigText, resolveRunConfig } from './llm/config.js';
export type { HostEvent, HostPoolSettings } from './llm/generate/host-pool.js';
export { DEFAULT_POOL_SETTINGS, HostPool, HostsUnavailable, withModelCalls } from './llm/generate/host-pool.js';
/** llms4pcg 2.0.1 limits: time before each call, tokens after; the official messages. */
export { LimitExceeded, OFFICIAL_TEMPERATURE, OFFICIAL_TIME_LIMIT_S, OFFICIAL_TOKEN_LIMIT, OFFICIAL_TOP_P, TrialBudget } from './llm/generate/limits.js';
/** What `sbeval run` hands runCompetition: the generation of configured submissions, and the judges' and survey's part of result/ (also for checkResults). */
export { GENERATE_STAGE } from './llm/generate/run-stage.js';
export { OFFICIAL_MASTER_SEED_2025, trialSeed } from './llm/generate/seeds.js';
export type { GenerateEvents, GenerateOptions, GenerateSummary, LayoutChoice, ModelSummary, PlannedTrial } from './llm/generate/stage.js';
// Generation: submissions × Ollama models × letters × trials → raw responses, official limits.
/** The generate stage, its plan (layout, per-trial seeds) and the trial-seed rule. */
export { competitionRoots, planTrials, runGenerate, trialFingerprint } from './llm/generate/stage.js';
export type { ConversationSubmission, Newlines, ObjectStyle, ProgramSubmission, Submission } from './llm/generate/submission.js';
/** Submissions: prompt files, chat scripts, external programs, built-in baselines; `<OBJECT>` substitution. */
export { BUILTIN_SUBMISSIONS, fillObject, loadSubmission } from './llm/generate/submission.js';
export type { OrderJudgeOptions } from './llm/judges/order-plan.js';
export type { OrderJudgeSummary } from './llm/judges/order-stage.js';
export { runOrderJudge } from './llm/judges/order-stage.js';
export { judgesReportSection } from './llm/judges/report.js';
export type { JudgeResult, JudgeResults } from './llm/judges/results.js';
export { judgeAndSurveyFiles, loadJudgeResults } from './llm/judges/results.js';
export { loadRubric, parseRubricText, rubricOf } from './llm/judges/rubric-file.js';
export type { RubricLetterFile, RubricTrialRecord } from './llm/judges/rubric-record.js';
export { readRubricFile } from './llm/judges/rubric-record.js';
export type { RubricJudgeOptions, RubricJudgeSummary } from './llm/judges/rubric-stage.js';
export { runRubricJudge } from './llm/judges/rubric-stage.js';
// Judges beyond the ViT: the tiered rubric judge, the ordering judge, the human survey.
/** Pure parts: rubric tiers, answer and ordering parsers, schedules, ordering metrics, Krippendorff's alpha, correlations. */
export * from './llm/judges/scoring/index.js';
export type {
  CallSettings,
  ChatMessage,
  ChatRequestSpec,
  ChatResult,
  ModelApi,
  ModelCallSettings,
  ModelDetails,
  ModelListing,
} from './llm/model-calls/index.js';
/** The model-call client (Ollama and OpenAI-style APIs, hard bounds, credentials kept out of messages; docs/model-calls.md). */
export {
  API_KEY_VARIABLES,
  CallError,
  chatOnce,
  DEFAULT_CALL_DEADLINE_S,
  DEFAULT_MAX_ANSWER_BYTES,
  DEFAULT_MODEL_API,
  describeModel,
  hostHasModel,
  hostLabel,
  listModels,
  MODEL_APIS,
  ModelEndpoint,
} from './llm/model-calls/index.js';
export { LLM_RESULT_CONTRIBUTORS } from './llm/result-contributors.js';
export type { SurveyFile, SurveyItem } from './llm/survey/build.js';
export { buildSurvey, readSurvey } from './llm/survey/build.js';
export { collectSurvey } from './llm/survey/collect.js';
export { loadSurveyRatings } from './llm/survey/ratings.js';
export { startSurveyServer } from './llm/survey/server.js';
export type { EngineKind as RunEngineKind, Rules, RunConfig, RunFlags } from './orchestrator/config/index.js';
export { ENGINES, RULES } from './orchestrator/config/index.js';
// The one reading of a competition folder (teams, or model folders of teams), shared by every command.
export { checkCompetitionRoot, type RootLayout } from './orchestrator/layout/root-check.js';
export { competitionSource, listCompetition } from './orchestrator/layout/trial-listing.js';
export type {
  LevelContext,
  LevelEffects,
  LevelEvaluation,
  LevelEvaluationOptions,
  LevelFailure,
  LevelInput,
  LevelOutcome,
  LevelRef,
} from './orchestrator/machine/index.js';
export { createLevelActors, evaluateLevel, levelMachine, provideLevelMachine, startLevel } from './orchestrator/machine/index.js';
export type { AttemptRecord, EngineFactory, EnginePoolOptions, PoolEvent, PoolRequest, PoolRunResult } from './orchestrator/pool/index.js';
export { defaultClassifyError, EnginePool, PoolJobError } from './orchestrator/pool/index.js';
export type { ProgressDisplay } from './orchestrator/progress/index.js';
export { createProgressDisplay, JsonProgress, PlainProgress, TtyProgress } from './orchestrator/progress/index.js';
export { type CheckResult, checkLines, checkResults } from './orchestrator/result/check.js';
export type { ResultContributor } from './orchestrator/result/contributors.js';
export { SCORE_FILES } from './orchestrator/result/files.js';
export { type Manifest, readManifest } from './orchestrator/result/manifest.js';
// What result/ may claim: the folder's readiness to be scored, its manifest, `sbeval check`.
export { type Blocker, type ReadinessOptions, scoreBlockers } from './orchestrator/result/readiness.js';
export type { GenerateStage, RunOptions, RunReport, RunStageReport, TeamBreakdown, TrialRow } from './orchestrator/run/index.js';
/** The orchestrator: sbeval run, its config, the per-level machine, progress displays. */
export { breakdown, failureSection, planLevels, RunLog, runCompetition, TRIAL_COLUMNS, trialsCsv } from './orchestrator/run/index.js';
export type { DiversityStageOptions } from './orchestrator/stages/diversity.js';
export { runDiversityStage } from './orchestrator/stages/diversity.js';
export { type SimulationIdentity, simulationIdentity } from './orchestrator/stages/level-cache.js';
export type { FetchOptions, FetchResult, ModelManifest } from './orchestrator/stages/model.js';
export { COMPETITION_MODEL, convertModelFolder, fetchModel, readModelInfo } from './orchestrator/stages/model.js';
export type { CorpusEntry, CorpusIndex, RecordOptions, RecordSummary } from './orchestrator/stages/record.js';
export { recordCorpus } from './orchestrator/stages/record.js';
export type { ScoreStageOptions, TeamOrder } from './orchestrator/stages/score.js';
export { loadCompetition } from './orchestrator/stages/score.js';
export type { ScoreStageResult } from './orchestrator/stages/score-stage.js';
export { runScoreStage } from './orchestrator/stages/score-stage.js';
export type { SimilarityRules, SimilarityStageOptions, SimilaritySummary } from './orchestrator/stages/similarity.js';
/** Stages and model files: sbeval similarity / diversity / model convert / model fetch. */
export { runSimilarityStage } from './orchestrator/stages/similarity.js';
export type { SimulateOptions, SimulateSummary } from './orchestrator/stages/simulate.js';
/** The simulate stage (levels → stability JSON + images) and one level through the level machine on an engine pool. */
export { runSimulateStage } from './orchestrator/stages/simulate.js';
export type { LevelVerification, VerifyOptions, VerifySummary } from './orchestrator/stages/verify.js';
export { verifyCorpus } from './orchestrator/stages/verify.js';
/** scipy 1.12 cosine distance and the official diversity of one character (2024: softmax, 2025: CLS). */
export { cosineDistance, scipyCosine } from './scoring/diversity/cosine.js';
export type { DiversityRules } from './scoring/diversity/diversity.js';
export { computeDiversity, diversityJson, diversityTrials } from './scoring/diversity/diversity.js';
export { formatExplanation } from './scoring/explain/format.js';
export type {
  BodyReport,
  ContactReport,
  DeathReport,
  ExplainInput,
  ExplainOptions,
  Explanation,
  MotionKind,
  Reason,
  ReasonKind,
  StaticIssue,
  TimelineEntry,
} from './scoring/explain.js';
/** Why a level collapsed (sbeval explain), the viewer server (sbeval view), recorded-run regression (sbeval record / verify). */
export { bodyName, explainFrames, NOTABLE_CONTACT_SPEED, STRIKE_SPEED } from './scoring/explain.js';
// Official per-character file formats (stability, similarity, diversity): types, readers, byte-exact writers.
export * from './scoring/formats/index.js';
export type {
  Gallery,
  GalleryTrial,
  HeatMap,
  RankingBar,
  Report,
  ReportCompetition,
  ReportFact,
  ReportInput,
  ReportSection,
  ReportTable,
} from './scoring/report/index.js';
export { buildReport, competitionGrids, heatMapSvg, rankingBarsSvg } from './scoring/report/index.js';
// Official scoring (weights, scores, ranks with exact decimals; 2023/2024/2025 rules) and its report.
export * from './scoring/score/index.js';
export type { Classification, ClassifierOptions, ClassifierStats } from './scoring/similarity/classifier.js';
/** One onnxruntime session, batched, deduplicated; softmax; letter indices as the official script. */
export { VitClassifier } from './scoring/similarity/classifier.js';
export { convertHfVit, safetensorsWeights } from './scoring/similarity/convert.js';
// Similarity and diversity: the competition's ViT through onnxruntime-node, PIL-exact preprocessing.
/** PNG → RGB as PIL's convert("RGB"); Pillow's resampling bit for bit; ViTImageProcessor's rescale/normalise. */
export { decodePngToRgb } from './scoring/similarity/decode.js';
export type { VitModelInfo } from './scoring/similarity/model-info.js';
export { modelInfoFromMetadata } from './scoring/similarity/model-info.js';
export { concatPieces, encodeOnnxModel } from './scoring/similarity/onnx-writer.js';
export type { Image8, PilResample } from './scoring/similarity/pil-resample.js';
export { axisCoefficients, PIL_RESAMPLE, pilResize } from './scoring/similarity/pil-resample.js';
export type { PreprocessorConfig } from './scoring/similarity/preprocess.js';
export {
  normalizeInto,
  parsePreprocessorConfig,
  preprocessRgb,
  resizeForModel,
  VIT_DEFAULT_PREPROCESSOR,
} from './scoring/similarity/preprocess.js';
export { letterIndex, letterProbabilities, softmax } from './scoring/similarity/probabilities.js';
/** Hugging Face ViT → ONNX without Python: safetensors, ViTConfig, the graph, the protobuf writer. */
export { encodeSafetensors, parseSafetensors, toFloat32 } from './scoring/similarity/safetensors.js';
export type { VitActivation, VitConfig } from './scoring/similarity/vit-config.js';
export { parseVitConfig, VIT_ACTIVATIONS, vitParameterShapes } from './scoring/similarity/vit-config.js';
export { buildVitGraph, VIT_CLS_HIDDEN, VIT_INPUT, VIT_LOGITS } from './scoring/similarity/vit-graph.js';
export type { LevelStability, StabilityRule, TrialStability } from './scoring/stability.js';
/** Stability from the frame stream (official displacement rule, velocity option) and Unity's trial bookkeeping. */
export {
  bestScore,
  combineTrials,
  DEFAULT_VELOCITY_RULE,
  needsAnotherTrial,
  OFFICIAL_MOVEMENT_THRESHOLD,
  OFFICIAL_RULE,
  OFFICIAL_TRIALS,
  OFFICIAL_WINDOW_STEPS,
  StabilityTracker,
  trialStability,
  unityScore,
} from './scoring/stability.js';
export type { Divergence, TrialComparison } from './scoring/trial-comparison.js';
export { compareTrials, DEFAULT_TOLERANCE } from './scoring/trial-comparison.js';
export type { ViewerMeta } from './viewer/page-data.js';
export type { CompetitionTrial, ViewerContext, ViewerOptions, ViewerServer, ViewerSource } from './viewer/server.js';
export { startViewer } from './viewer/server.js';
export { simulateTrialData } from './viewer/simulate-trial.js';
export { openTraceFile } from './viewer/trace-source.js';
export type { TrialData } from './viewer/trial.js';
export { viewerFrames, viewerMeta } from './viewer/trial.js';
