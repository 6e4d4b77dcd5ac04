// sbeval bridge, Unity side: one trial of one level, the way the ICE evaluator runs it
// (Assets/ICE/Scripts/Evaluation/Stability/BaseStabilityEvaluator.cs IE_StableCheck, and
// Similarity/BaseSimilarityEvaluator.cs IE_TakeScreenshots for the image): the XML goes through
// LevelList.LoadLevelsFromSource, the evaluation world scene is loaded additively, ABGameWorld decodes
// the level in its Start, physics runs in Unity's own fixed-step loop.
//
// Where things happen in Unity's player loop (the host forwards the three hooks):
// - BeforeStep (host FixedUpdate, before each physics step): the first time the decoded world is
//   there, its bodies have not been stepped yet — attach the contact probes, record step 0 and send
//   `loaded`. A body that already moved means a step ran first: the run fails instead of labelling
//   every frame one step late.
// - AfterStep (the host's WaitForFixedUpdate clock, after each step): step k's contacts and states.
// - AfterFrame (host LateUpdate, after Update destroyed what it destroys): removals, then the frames
//   and events collected so far are sent; in the image pass, the captures due on the steps this frame
//   ran are taken here — after the frame's game logic (Update: out-of-world deaths, removals), as the
//   evaluator's camera renders the frame after its scripts.
// Frames are counted in physics steps, not rendered frames: in an editor in batch mode
// WaitForEndOfFrame never resumes, and steps are what the evaluator's frames amount to at one step
// per frame (bridge/window.ts, EvaluatorWindow.cs).
//
// Passes: the stability pass (StabilityGameWorld, the stability time scale) streams steps
// 0 … EvaluatorWindow.StepsToSimulate; if a capture was asked for, an image pass follows as the
// evaluator's is: a separate load of the level in SimilarityGameWorld at time scale 5, the structure
// bound on step 501, `_raw` on 507, the image on 514 (CaptureRenderer). An editor without a graphics
// device (-nographics) cannot render: such a run fails at once with the reason instead of sending a
// blank image. The world must be decoded within a wall-clock limit (-sbevalLoadTimeout, default
// 120 s): a batch-mode editor turns frames uncapped, so a count of frames would give a slow first load
// of the scene well under a second. C# forbids `yield` inside try/catch, so every piece of work runs
// through Try(), which turns an exception into the run's `error` message.

using System;
using System.Collections;
using System.Collections.Generic;
using System.Diagnostics;
using UnityEngine;
using UnityEngine.SceneManagement;

namespace Sbeval.Bridge.Unity
{
    public sealed class LevelRun
    {
        /// <summary>The evaluator's world scenes (in the project's build settings, so loadable by path).</summary>
        public const string StabilityScene = "Assets/ICE/Scenes/StabilityGameWorld.unity";
        public const string SimilarityScene = "Assets/ICE/Scenes/SimilarityGameWorld.unity";

        /// <summary>`timeScale: 5` of BatchSimilarityTest.unity (the stability scene's is 10).</summary>
        public const float SimilarityTimeScale = 5f;


        private enum Pass { Stability, Image }

        private readonly MonoBehaviour m_host;
        private readonly BridgeClient m_client;
        private readonly EngineSession m_session;
        private readonly LoadMessage m_load;
        private readonly CaptureRenderer m_capture;
        private readonly float m_timeScale;
        private readonly double m_loadTimeout;
        private readonly Stopwatch m_loadWatch = new Stopwatch();
        private readonly EvaluatorWindow m_window;
        private readonly long m_totalSteps;
        private readonly Stopwatch m_watch = new Stopwatch();

        private Pass m_pass;
        private bool m_waitingForWorld;
        private bool m_stepping;
        private bool m_passDone;
        private bool m_streamComplete;
        private long m_step;
        private bool m_steppedThisFrame;
        /// <summary>Image pass: capture steps (bound, raw, image) reached by this frame's physics steps, taken at its end.</summary>
        private readonly List<long> m_capturesDue = new List<long>();
        private List<LevelObject> m_xmlObjects;
        private BodyTracker m_tracker;
        private FrameBatcher m_batcher;
        private List<SimEvent> m_pending = new List<SimEvent>();
        private readonly Queue<FrameBatch> m_ready = new Queue<FrameBatch>();
        private int m_eventCount;
        private byte[] m_png;
        private byte[] m_raw;
        private bool m_failed;
        /// <summary>Stability pass: the step the first frame that ran physics ended on (the evaluator's first read), and the frames since.</summary>
        private long m_firstReadStep = -1;
        private long m_frames;

        public bool Finished { get; private set; }

        public LevelRun(MonoBehaviour host, BridgeClient client, EngineSession session, LoadMessage load, CaptureRenderer capture, float timeScale, double loadTimeoutSeconds)
        {
            m_host = host;
            m_client = client;
            m_session = session;
            m_load = load;
            m_capture = capture;
            m_timeScale = timeScale;
            m_loadTimeout = loadTimeoutSeconds;
            m_window = EvaluatorWindow.For(load.Settings.WindowSteps);
            m_totalSteps = m_window.StepsToSimulate(load.Settings.Capture);
        }

        public IEnumerator Execute()
        {
            m_watch.Start();
            if (m_load.Settings.Capture && !m_capture.Available)
            {
                Fail("capture", "engine", "this editor cannot render the capture: " + m_capture.Unavailable, "start the editor with a graphics device (no -nographics) and the evaluator's OCR settings asset");
            }
            else if (Try("load", "level", PrepareLevel))
            {
                yield return m_host.StartCoroutine(RunPass(Pass.Stability, StabilityScene, m_timeScale));
                if (!m_failed && m_load.Settings.Capture) yield return m_host.StartCoroutine(RunPass(Pass.Image, SimilarityScene, SimilarityTimeScale));
                Time.timeScale = Mathf.Max(0.1f, m_timeScale);
                if (!m_failed && Try("simulate", "engine", SendRest)) Try("simulate", "engine", SendDone);
            }
            Finished = true;
        }

        private void PrepareLevel()
        {
            m_xmlObjects = LevelObjects.Parse(m_load.Xml);
            // The evaluator's own path: the XML through LevelLoader, index 0 selected for ABGameWorld.
            LevelList.Instance.LoadLevelsFromSource(new[] { m_load.Xml });
            LevelList.Instance.CurrentIndex = 0;
        }

        private IEnumerator RunPass(Pass pass, string scene, float timeScale)
        {
            m_pass = pass;
            m_step = 0;
            m_passDone = false;
            m_capturesDue.Clear();
            Time.timeScale = Mathf.Max(0.1f, timeScale);
            AsyncOperation loading = null;
            if (!Try("load", "engine", () => loading = SceneManager.LoadSceneAsync(scene, LoadSceneMode.Additive))) yield break;
            if (loading == null)
            {
                Fail("load", "engine", "cannot load " + scene + " (is it in the build settings?)", "open the project once in the editor and check File > Build Settings");
                yield break;
            }
            m_waitingForWorld = true;
            m_loadWatch.Reset();
            m_loadWatch.Start();
            while (!m_failed && !(pass == Pass.Stability ? m_streamComplete : m_passDone))
            {
                if (m_session.State == SessionState.Closed)
                {
                    m_failed = true; // the connection is gone: nobody to tell
                    break;
                }
                if (m_session.CancelRequested)
                {
                    Fail("cancelled", "engine", "cancelled", null);
                    break;
                }
                if (m_waitingForWorld && m_loadWatch.Elapsed.TotalSeconds > m_loadTimeout)
                {
                    Fail("load", "engine", "ABGameWorld did not decode the level within " + m_loadTimeout + " s (wall clock) of loading " + scene, "see the editor log for an exception in ABGameWorld.Start; a slow machine can raise the limit with -sbevalLoadTimeout <seconds>");
                    break;
                }
                yield return null;
            }
            m_waitingForWorld = false;
            m_stepping = false;
            // Unload (after the load itself finished: a scene still loading cannot be unloaded). A load
            // that never finishes leaves the scene loading: give up on it after twice the limit.
            while (!loading.isDone && m_loadWatch.Elapsed.TotalSeconds <= 2 * m_loadTimeout) yield return null;
            if (!loading.isDone)
            {
                UnityEngine.Debug.LogError("[sbeval] " + scene + " is still loading after " + (2 * m_loadTimeout) + " s; not unloading it");
                yield break;
            }
            if (m_tracker != null && pass == Pass.Stability) m_tracker.Detach();
            AsyncOperation unloading = SceneManager.UnloadSceneAsync(scene);
            if (unloading != null)
            {
                while (!unloading.isDone) yield return null;
            }
            yield return null;
        }

        /// <summary>Host FixedUpdate: before a physics step.</summary>
        public void BeforeStep()
        {
            if (!m_waitingForWorld || m_failed || !WorldDecoded()) return;
            m_waitingForWorld = false;
            if (m_pass == Pass.Stability) Try("load", "engine", AttachStability);
            else Try("capture", "engine", AttachImage);
        }

        private static bool WorldDecoded()
        {
            // DecodeLevel instantiates the slingshot (named "Slingshot") before any bird, pig or block.
            return UnityEngine.Object.FindObjectOfType<ABGameWorld>() != null && GameObject.Find("Slingshot") != null;
        }

        private void CheckNotStepped()
        {
            string moved = BodyTracker.AlreadyStepped();
            if (moved != null)
            {
                throw new InvalidOperationException("the level's bodies went through a physics step before the plugin saw them (" + moved +
                    "): this Unity's player loop runs ABGameWorld.Start after FixedUpdate, so step labels would be one step late");
            }
        }

        private void AttachStability()
        {
            CheckNotStepped();
            try
            {
                m_tracker = BodyTracker.Attach(m_xmlObjects, line => UnityEngine.Debug.LogWarning("[sbeval] " + m_load.LevelId + ": " + line));
            }
            catch (LevelMismatchException e)
            {
                Fail("load", "level", e.Message, "check the level XML (indented, known block types and materials)");
                return;
            }
            m_batcher = new FrameBatcher(m_tracker.Count, (int)m_load.Settings.FramesPerBatch);
            // Time.fixedDeltaTime is the float 0.02 (TimeManager.asset); announce it as the decimal it stands for.
            Send(m_session.Loaded(Math.Round(Time.fixedDeltaTime, 6), m_tracker.Bodies));
            m_tracker.Sample(0, m_batcher, m_pending);
            EndStep(0);
            m_stepping = true;
        }

        private void AttachImage()
        {
            CheckNotStepped();
            m_stepping = true;
        }

        /// <summary>After each physics step (the host's WaitForFixedUpdate clock).</summary>
        public void AfterStep()
        {
            if (!m_stepping || m_failed) return;
            m_step++;
            m_steppedThisFrame = true;
            long step = m_step;
            if (m_pass == Pass.Stability)
            {
                Try("simulate", "engine", () =>
                {
                    m_tracker.DrainContacts(step, m_pending);
                    m_tracker.Sample(step, m_batcher, m_pending);
                    EndStep(step);
                });
                if (step >= m_totalSteps) m_stepping = false;
            }
            else
            {
                if (step == m_window.BoundStep || step == m_window.RawStep || step == m_window.ImageStep) m_capturesDue.Add(step);
                if (step >= m_window.ImageStep) m_stepping = false;
            }
        }

        /// <summary>Host LateUpdate: the end of a frame.</summary>
        public void AfterFrame()
        {
            if (m_failed) return;
            if (m_pass == Pass.Image)
            {
                TakeDueCaptures();
                return;
            }
            if (m_tracker == null || m_streamComplete) return;
            // Destroyed during this frame's Update: its end-of-frame read (the evaluator's) misses it.
            // If no step ran this frame, the previous end-of-frame read still saw the state of m_step.
            if (m_firstReadStep < 0 && m_steppedThisFrame) m_firstReadStep = m_step;
            if (m_firstReadStep >= 0) m_frames++;
            Try("simulate", "engine", () =>
            {
                m_tracker.NoteRemovals(m_steppedThisFrame ? m_step : m_step + 1, m_pending);
                if (!m_stepping && m_step >= m_totalSteps)
                {
                    FrameBatch rest = m_batcher.Flush();
                    if (rest != null) m_ready.Enqueue(rest);
                    m_streamComplete = true;
                    LogTiming();
                }
                Flush();
            });
            m_steppedThisFrame = false;
        }

        /// <summary>
        /// What the window assumes of this editor's player loop (bridge/window.ts): the evaluator's first
        /// end-of-frame read sees step 1, and each frame runs one physics step. Parsed by `sbeval unity doctor`.
        /// </summary>
        private void LogTiming()
        {
            UnityEngine.Debug.Log("[sbeval] timing " + m_load.LevelId + ": first read step " + m_firstReadStep + ", " + m_step + " physics steps in " + m_frames + " frames");
        }

        private void EndStep(long step)
        {
            FrameBatch batch = m_batcher.EndStep();
            if (batch != null) m_ready.Enqueue(batch);
        }

        /// <summary>Events first (they concern the steps of the frames that follow), then the full batches.</summary>
        private void Flush()
        {
            if (m_pending.Count > 0 && (m_ready.Count > 0 || m_streamComplete))
            {
                m_eventCount += m_pending.Count;
                Send(m_session.Events(m_pending));
                m_pending = new List<SimEvent>();
            }
            while (m_ready.Count > 0) Send(m_session.Frames(m_ready.Dequeue()));
        }

        /// <summary>The captures due on the steps this frame ran, in step order, after the frame's game logic.</summary>
        private void TakeDueCaptures()
        {
            foreach (long step in m_capturesDue)
            {
                if (!Try("capture", "engine", () => CaptureAt(step))) break;
                if (step >= m_window.ImageStep) m_passDone = true;
            }
            m_capturesDue.Clear();
        }

        /// <summary>The image pass (BaseSimilarityEvaluator.IE_TakeScreenshots), in physics steps since the level's creation.</summary>
        private void CaptureAt(long step)
        {
            if (step == m_window.BoundStep) m_capture.FrameStructure();
            if (step == m_window.RawStep)
            {
                if (m_load.Settings.CaptureRaw) m_raw = RenderChecked();
                m_capture.UseOcrSprites();
            }
            if (step == m_window.ImageStep) m_png = RenderChecked();
        }

        private byte[] RenderChecked()
        {
            byte[] png = m_capture.Render();
            if (m_capture.BlankReason != null) Fail("capture", "engine", m_capture.BlankReason, CaptureRenderer.BlankHint);
            return png;
        }

        private void SendRest()
        {
            if (m_load.Settings.Capture)
            {
                if (m_png == null) throw new InvalidOperationException("the capture was not rendered");
                Send(m_session.Capture(m_png, m_raw));
            }
        }

        private void SendDone()
        {
            Send(m_session.Done(new RunSummary { Steps = m_totalSteps, Bodies = m_tracker.Count, Events = m_eventCount, ElapsedMs = Math.Round(m_watch.Elapsed.TotalMilliseconds) }));
        }

        private void Send(Message message)
        {
            m_client.Send(m_session, message);
        }

        private bool Try(string phase, string fault, Action work)
        {
            if (m_failed) return false;
            try
            {
                work();
                return !m_failed;
            }
            catch (Exception e)
            {
                UnityEngine.Debug.LogException(e);
                Fail(phase, fault, e.GetType().Name + ": " + e.Message, null);
                return false;
            }
        }

        private void Fail(string phase, string fault, string text, string hint)
        {
            if (m_failed) return;
            m_failed = true;
            m_stepping = false;
            if (m_session.State == SessionState.Running && m_session.Run == m_load) Send(m_session.Failed(phase, fault, text, hint));
        }
    }
}
