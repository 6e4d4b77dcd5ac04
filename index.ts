/**
 * The library entry: `import { ... } from 'sbeval'`.
 */
export type { Level, LevelObject, LevelBlock, LevelPig, LevelTnt, LevelPlatform, LevelCamera, Material } from './levels/level.js';
export { BLOCKS, MATERIALS, DEFAULT_MATERIAL, blockSpec, isMaterial } from './levels/catalog.js';
export type { BlockSpec, Collider, MaterialSpec } from './levels/catalog.js';

// Levels: response → drop program → grid drop → Science Birds XML, official-exact
// (chatgpt4pcg@1.4.1); a strict reader for any Science Birds level; the 2023 prompt rules.
/** Official code extraction: the drop calls of the last fenced block, or null (`Code not found.`). */
export { extractCode, lastFencedBlock, assertFunctionName, DROP_BLOCK, AB_DROP, CODE_NOT_FOUND } from './levels/extract.js';
/** A drop program read line by line as the official converter reads it. */
export { parseDropProgram } from './levels/program.js';
export type { BlockId, DropCall } from './levels/program.js';
/** The official 20×16 height-map drop with its three errors and the left shift; the placed grid as data. */
export {
  dropBlocks, tryDropBlocks, structureToText, DropError, BLOCK_SHAPES, GRID_WIDTH, GRID_HEIGHT,
  HEIGHT_BOUNDARY, WIDTH_BOUNDARY, UNKNOWN_BLOCK,
} from './levels/drop.js';
export type { PlacedBlock, PlacedStructure, DropFailure, DropResult } from './levels/drop.js';
/** Byte-identical official XML (exact 1e-5 integer arithmetic), the same level as data, and any Level as XML. */
export { structureToXml, structureToLevel, levelToXml, levelFrame, formatUnits, blockCentreUnits, GRID_WORLD } from './levels/xml-write.js';
export type { LevelFrame } from './levels/xml-write.js';
/** Strict Science Birds level reader: parseLevelXml throws LevelXmlError; readLevelXml also lists Unity quirks. */
export { parseLevelXml, readLevelXml, LevelXmlError, DEFAULT_MAX_LEVEL_SIZE, DEFAULT_MAX_LEVEL_OBJECTS, DEFAULT_MAX_MAGNITUDE, MAX_LEVEL_WIDTH } from './levels/xml-read.js';
export type { ReadLevelXmlOptions, LevelXmlResult } from './levels/xml-read.js';
/** The two level stages composed: responseToLevel (extract + convert), convertProgram, programToXml. */
export { responseToLevel, convertProgram, programToXml } from './levels/pipeline.js';
export type { LevelOptions, ConvertResult, ResponseResult } from './levels/pipeline.js';
/** 2023 prompt rules: words-count@2.0.2 word count, allowed characters, <OBJECT>, 900 words. */
export { qualify, countWords, disallowedCharacters, containsDisallowedCharacters, countObjectTokens, MAX_WORDS_2023 } from './levels/rules-2023.js';
export type { QualificationVerdict, QualificationCheck } from './levels/rules-2023.js';
export { EnginePool, PoolJobError, defaultClassifyError } from './orchestrator/pool/index.js';
export type { EnginePoolOptions, EngineFactory, PoolEvent, PoolRequest, PoolRunResult, AttemptRecord } from './orchestrator/pool/index.js';

// Official per-character file formats (stability, similarity, diversity): types, readers, byte-exact writers.
export * from './scoring/formats/index.js';

// Generation: submissions × Ollama models × letters × trials → raw responses, official limits.
/** The generate stage, its plan (layout, per-trial seeds) and the trial-seed rule. */
export { runGenerate, planTrials, competitionRoots, trialFingerprint } from './llm/generate/stage.js';
export type { GenerateOptions, GenerateSummary, GenerateEvents, ModelSummary, PlannedTrial, LayoutChoice } from './llm/generate/stage.js';
export { trialSeed, OFFICIAL_MASTER_SEED_2025 } from './llm/generate/seeds.js';
/** Submissions: prompt files, chat scripts, external programs, built-in baselines; `<OBJECT>` substitution. */
export { loadSubmission, fillObject, BUILTIN_SUBMISSIONS } from './llm/generate/submission.js';
export type { Submission, ConversationSubmission, ProgramSubmission, ObjectStyle, Newlines } from './llm/generate/submission.js';
/** llms4pcg 2.0.1 limits: time before each call, tokens after; the official messages. */
export { TrialBudget, LimitExceeded, OFFICIAL_TIME_LIMIT_S, OFFICIAL_TOKEN_LIMIT, OFFICIAL_TEMPERATURE, OFFICIAL_TOP_P } from './llm/generate/limits.js';
export { HostPool, HostsUnavailable, DEFAULT_POOL_SETTINGS, withModelCalls } from './llm/generate/host-pool.js';
export type { HostPoolSettings, HostEvent } from './llm/generate/host-pool.js';
/** The model-call client (Ollama and OpenAI-style APIs, hard bounds, credentials kept out of messages; docs/model-calls.md). */
export { ModelEndpoint, CallError, chatOnce, listModels, describeModel, hostHasModel, hostLabel, MODEL_APIS, API_KEY_VARIABLES, DEFAULT_MAX_ANSWER_BYTES, DEFAULT_CALL_DEADLINE_S } from './llm/model-calls/index.js';
export type { ModelApi, CallSettings, ChatMessage, ChatRequestSpec, ChatResult, ModelCallSettings, ModelListing, ModelDetails } from './llm/model-calls/index.js';

// Official scoring (weights, scores, ranks with exact decimals; 2023/2024/2025 rules) and its report.
export * from './scoring/score/index.js';
export { buildReport, competitionGrids, heatMapSvg, rankingBarsSvg } from './scoring/report/index.js';
export type { Report, ReportInput, ReportSection, ReportTable, ReportCompetition, ReportFact, HeatMap, Gallery, GalleryTrial, RankingBar } from './scoring/report/index.js';
export { loadCompetition } from './orchestrator/stages/score.js';
export { runScoreStage } from './orchestrator/stages/score-stage.js';
// The one reading of a competition folder (teams, or model folders of teams), shared by every command.
export { checkCompetitionRoot, type RootLayout } from './orchestrator/layout/root-check.js';
export type { ScoreStageOptions, TeamOrder } from './orchestrator/stages/score.js';
export type { ScoreStageResult } from './orchestrator/stages/score-stage.js';

// Headless engine: the evaluator's physics, damage, stability and image without Unity.
/** Engines: in-process, worker threads, by kind; the physics settings (one frozen object each). */
export { HeadlessEngine, LevelLoadError, HEADLESS_ENGINE_VERSION, headlessDigest } from './bridge/headless/engine.js';
export { WorkerEngine } from './bridge/headless/worker-engine.js';
export { createEngines, defaultEngineCount } from './bridge/engines.js';
export { ENGINE_KINDS } from './bridge/engine-kinds.js';
export type { CreateEnginesOptions } from './bridge/engines.js';
export type { EngineKind } from './bridge/engine-kinds.js';
export { WORLD_SETTINGS, BOX2D_CONSTANTS } from './bridge/headless/settings.js';
export { evaluatorWindow, stepsToSimulate, isReadStep, loopIterations, OFFICIAL_WINDOW } from './bridge/window.js';
export type { EvaluatorWindow } from './bridge/window.js';
/** One trial in this thread: frame stream + events + the rendered images (RGBA), and PNG encoding. */
export { simulateTrial, levelSeed } from './bridge/headless/run.js';
export type { TrialStream, TrialImages } from './bridge/headless/run.js';
export { encodePng, decodePng } from './bridge/headless/png.js';
/** Stability from the frame stream (official displacement rule, velocity option) and Unity's trial bookkeeping. */
export {
  StabilityTracker, trialStability, unityScore, needsAnotherTrial, combineTrials, bestScore,
  OFFICIAL_RULE, OFFICIAL_MOVEMENT_THRESHOLD, OFFICIAL_WINDOW_STEPS, OFFICIAL_TRIALS, DEFAULT_VELOCITY_RULE,
} from './scoring/stability.js';
export type { StabilityRule, TrialStability, LevelStability } from './scoring/stability.js';
/** The simulate stage (levels → stability JSON + images) and one level through the level machine on an engine pool. */
export { runSimulateStage } from './orchestrator/stages/simulate.js';
export type { SimulateOptions, SimulateSummary } from './orchestrator/stages/simulate.js';
export { evaluateLevel } from './orchestrator/machine/index.js';
export type { LevelEvaluation, LevelEvaluationOptions } from './orchestrator/machine/index.js';
export { PIGS, TNT, PLATFORM, LANDSCAPE, BLOCK_BODY, LAYERS, MATERIAL_LIFE_FACTOR, PIG_TYPES, BIRD_TYPES, BLOCK_TYPES, pigSpec } from './levels/catalog.js';
export type { BodySpec, PigSpec, Size, Point } from './levels/catalog.js';

// Similarity and diversity: the competition's ViT through onnxruntime-node, PIL-exact preprocessing.
/** PNG → RGB as PIL's convert("RGB"); Pillow's resampling bit for bit; ViTImageProcessor's rescale/normalise. */
export { decodePngToRgb, ImageDecodeError } from './scoring/similarity/decode.js';
export { pilResize, axisCoefficients, PIL_RESAMPLE } from './scoring/similarity/pil-resample.js';
export type { Image8, PilResample } from './scoring/similarity/pil-resample.js';
export { parsePreprocessorConfig, preprocessRgb, resizeForModel, normalizeInto, VIT_DEFAULT_PREPROCESSOR, PreprocessorConfigError } from './scoring/similarity/preprocess.js';
export type { PreprocessorConfig } from './scoring/similarity/preprocess.js';
/** Hugging Face ViT → ONNX without Python: safetensors, ViTConfig, the graph, the protobuf writer. */
export { parseSafetensors, toFloat32, encodeSafetensors, SafetensorsError } from './scoring/similarity/safetensors.js';
export { parseVitConfig, vitParameterShapes, VIT_ACTIVATIONS, VitConfigError } from './scoring/similarity/vit-config.js';
export type { VitConfig, VitActivation } from './scoring/similarity/vit-config.js';
export { buildVitGraph, VIT_INPUT, VIT_LOGITS, VIT_CLS_HIDDEN, VitWeightsError } from './scoring/similarity/vit-graph.js';
export { encodeOnnxModel, concatPieces } from './scoring/similarity/onnx-writer.js';
export { convertHfVit, safetensorsWeights, modelInfoFromMetadata, ModelConversionError } from './scoring/similarity/convert.js';
export type { VitModelInfo } from './scoring/similarity/convert.js';
/** One onnxruntime session, batched, deduplicated; softmax; letter indices as the official script. */
export { VitClassifier, softmax, letterIndex, letterProbabilities, ClassifierError } from './scoring/similarity/classifier.js';
export type { Classification, ClassifierOptions, ClassifierStats } from './scoring/similarity/classifier.js';
/** scipy 1.12 cosine distance and the official diversity of one character (2024: softmax, 2025: CLS). */
export { scipyCosine, cosineDistance } from './scoring/diversity/cosine.js';
export { computeDiversity, diversityTrials, diversityJson, DiversityInputError } from './scoring/diversity/diversity.js';
export type { DiversityRules } from './scoring/diversity/diversity.js';
/** Stages and model files: sbeval similarity / diversity / model convert / model fetch. */
export { runSimilarityStage } from './orchestrator/stages/similarity.js';
export type { SimilarityStageOptions, SimilaritySummary, SimilarityRules } from './orchestrator/stages/similarity.js';
export { runDiversityStage } from './orchestrator/stages/diversity.js';
export type { DiversityStageOptions } from './orchestrator/stages/diversity.js';
export { convertModelFolder, fetchModel, readModelInfo, COMPETITION_MODEL } from './orchestrator/stages/model.js';
export type { FetchOptions, FetchResult, ModelManifest } from './orchestrator/stages/model.js';
/** The orchestrator: sbeval run, its config, the per-level machine, progress displays. */
export { runCompetition, RunLog, planLevels, trialsCsv, failureSection, breakdown, TRIAL_COLUMNS } from './orchestrator/run/index.js';
export type { GenerateStage, RunOptions, RunReport, RunStageReport, TrialRow, TeamBreakdown } from './orchestrator/run/index.js';
/** What `sbeval run` hands runCompetition: the generation of configured submissions, and the judges' and survey's part of result/ (also for checkResults). */
export { GENERATE_STAGE } from './llm/generate/run-stage.js';
export { LLM_RESULT_CONTRIBUTORS } from './llm/result-contributors.js';
export type { ResultContributor } from './orchestrator/result/contributors.js';
// What result/ may claim: the folder's readiness to be scored, its manifest, `sbeval check`.
export { scoreBlockers, type Blocker, type ReadinessOptions } from './orchestrator/result/readiness.js';
export { simulationIdentity, type SimulationIdentity } from './orchestrator/stages/level-cache.js';
export { readManifest, type Manifest } from './orchestrator/result/manifest.js';
export { checkResults, checkLines, type CheckResult } from './orchestrator/result/check.js';
export { SCORE_FILES } from './orchestrator/result/files.js';
export { resolveRunConfig, loadConfigFile, parseConfigText, configSchema, RULES, ENGINES } from './orchestrator/config/index.js';
export type { RunConfig, RunFlags, ConfigFile, Rules, EngineKind as RunEngineKind } from './orchestrator/config/index.js';
export { levelMachine, provideLevelMachine, startLevel, createLevelActors } from './orchestrator/machine/index.js';
export type { LevelEffects, LevelInput, LevelOutcome, LevelRef, LevelContext, LevelFailure } from './orchestrator/machine/index.js';
export { createProgressDisplay, PlainProgress, JsonProgress, TtyProgress } from './orchestrator/progress/index.js';
export type { ProgressDisplay } from './orchestrator/progress/index.js';
/** Why a level collapsed (sbeval explain), the viewer server (sbeval view), recorded-run regression (sbeval record / verify). */
export { explainFrames, bodyName, NOTABLE_CONTACT_SPEED, STRIKE_SPEED } from './scoring/explain.js';
export type { Explanation, ExplainInput, ExplainOptions, BodyReport, Reason, ReasonKind, TimelineEntry, DeathReport, ContactReport, MotionKind, StaticIssue } from './scoring/explain.js';
export { formatExplanation } from './scoring/explain/format.js';
export { startViewer } from './viewer/server.js';
export type { CompetitionTrial, ViewerContext, ViewerOptions, ViewerServer, ViewerSource } from './viewer/server.js';
export { competitionSource, listCompetition } from './orchestrator/layout/trial-listing.js';
export { simulateTrialData, viewerMeta, viewerFrames } from './viewer/trial.js';
export { memorySink } from './bridge/memory-sink.js';
export type { TrialData, ViewerMeta } from './viewer/trial.js';
export { openTraceFile } from './viewer/trace-source.js';
export { recordCorpus } from './orchestrator/stages/record.js';
export type { CorpusIndex, CorpusEntry, RecordOptions, RecordSummary } from './orchestrator/stages/record.js';
export { verifyCorpus } from './orchestrator/stages/verify.js';
export type { VerifyOptions, VerifySummary, LevelVerification } from './orchestrator/stages/verify.js';
export { compareTrials, DEFAULT_TOLERANCE } from './scoring/trial-comparison.js';
export type { TrialComparison, Divergence } from './scoring/trial-comparison.js';

// The bridge: protocol, endpoint, remote engines, workers, fleets, traces (bridge/PROTOCOL.md).
export {
  PROTOCOL_VERSION,
  DEFAULT_MAX_MESSAGE_BYTES,
  CLOSE,
  MESSAGE_TYPES,
  SENDERS,
  ProtocolError,
  checkCompatibility,
  encodeMessage,
  decodeMessage,
} from './bridge/protocol.js';
export type { Message, MessageType, Capabilities, RunSummary, ErrorPhase, ErrorFault, Compatibility, Side } from './bridge/protocol.js';
export { EngineEndpoint } from './bridge/endpoint.js';
export type { EndpointOptions, RejectedConnection } from './bridge/endpoint.js';
export { RemoteEngine, EngineLostError, RemoteRunError } from './bridge/remote-engine.js';
export { runEngineWorker, headlessCapabilities } from './bridge/worker.js';
export type { WorkerOptions, WorkerResult } from './bridge/worker.js';
export { EngineFleet, FleetEngine } from './bridge/remote-fleet.js';
export type { FleetOptions, InstanceLauncher, LaunchSpec, InstanceInfo, InstanceStatus } from './bridge/remote-fleet.js';
export { headlessWorkerLauncher, unityLauncher, UNITY_ENTRY_METHOD } from './bridge/remote-launchers.js';
export type { UnityLaunchOptions } from './bridge/remote-launchers.js';
export {
  TRACE_FORMAT,
  TRACE_VERSION,
  TraceVersionError,
  TraceFormatError,
  TraceTooLargeError,
  MAX_TRACE_BYTES,
  TraceRecorder,
  TraceAssembler,
  openTrace,
  readTrace,
  traceFromBytes,
  runRecorded,
  teeSinks,
} from './bridge/trace.js';
export type { TraceHeader, TraceRecord, TraceStream, LoadedTrace, TraceRecorderOptions, TraceReadOptions } from './bridge/trace.js';

// Judges beyond the ViT: the tiered rubric judge, the ordering judge, the human survey.
/** Pure parts: rubric tiers, answer and ordering parsers, schedules, ordering metrics, Krippendorff's alpha, correlations. */
export * from './llm/judges/scoring/index.js';
export { runRubricJudge } from './llm/judges/rubric-stage.js';
export type { RubricJudgeOptions, RubricJudgeSummary } from './llm/judges/rubric-stage.js';
export { readRubricFile } from './llm/judges/rubric-record.js';
export type { RubricLetterFile, RubricTrialRecord } from './llm/judges/rubric-record.js';
export { loadJudgeResults, judgeAndSurveyFiles } from './llm/judges/results.js';
export type { JudgeResult, JudgeResults } from './llm/judges/results.js';
export { loadSurveyRatings } from './llm/survey/ratings.js';
export { runOrderJudge } from './llm/judges/order-stage.js';
export type { OrderJudgeOptions } from './llm/judges/order-plan.js';
export type { OrderJudgeSummary } from './llm/judges/order-stage.js';
export { loadRubric, parseRubricText, rubricOf } from './llm/judges/rubric-file.js';
export { judgesReportSection } from './llm/judges/report.js';
export { buildSurvey, readSurvey } from './llm/survey/build.js';
export type { SurveyFile, SurveyItem } from './llm/survey/build.js';
export { startSurveyServer } from './llm/survey/server.js';
export { collectSurvey } from './llm/survey/collect.js';
