// sbeval bridge, Unity side: one trial of one level, the way the ICE evaluator runs it
// (Assets/ICE/Scripts/Evaluation/Stability/BaseStabilityEvaluator.cs IE_StableCheck and
// Similarity/BaseSimilarityEvaluator.cs IE_TakeScreenshots): the XML goes through
// LevelList.LoadLevelsFromSource, the evaluation world scene is loaded additively and ABGameWorld
// decodes the level in its Start, physics runs in Unity's own fixed-step loop; after every physics
// step the bodies' states are streamed; after the window the black-on-white capture is rendered as
// the similarity scene does. C# forbids `yield` inside try/catch, so every piece of work between two
// yields runs through Try(), which turns an exception into the run's `error` message.

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

        /// <summary>Steps after the window at which the similarity scene computes the bound, saves `_raw`, saves the image (7 + 7 frames; bridge/headless/settings.ts uses the same numbers).</summary>
        public const int BoundDelaySteps = 0;
        public const int RawDelaySteps = 7;
        public const int CaptureDelaySteps = 14;

        /// <summary>Frames to wait for ABGameWorld to decode the level before giving up.</summary>
        private const int MaxWaitFrames = 600;

        private readonly BridgeClient m_client;
        private readonly EngineSession m_session;
        private readonly LoadMessage m_load;
        private readonly CaptureRenderer m_capture;
        private readonly float m_timeScale;
        private readonly Stopwatch m_watch = new Stopwatch();
        private readonly WaitForFixedUpdate m_afterStep = new WaitForFixedUpdate();

        private string m_scene;
        private bool m_sceneLoaded;
        private List<LevelObject> m_xmlObjects;
        private BodyTracker m_tracker;
        private FrameBatcher m_batcher;
        private List<SimEvent> m_pending = new List<SimEvent>();
        private int m_eventCount;
        private long m_totalSteps;
        private byte[] m_png;
        private byte[] m_raw;
        private bool m_failed;

        public bool Finished { get; private set; }

        public LevelRun(BridgeClient client, EngineSession session, LoadMessage load, CaptureRenderer capture, float timeScale)
        {
            m_client = client;
            m_session = session;
            m_load = load;
            m_capture = capture;
            m_timeScale = timeScale;
        }

        public IEnumerator Execute()
        {
            m_watch.Start();
            SimulationSettings settings = m_load.Settings;
            m_totalSteps = settings.WindowSteps + (settings.Capture ? CaptureDelaySteps : 0);
            m_scene = settings.Capture ? SimilarityScene : StabilityScene;

            return Run();
        }

        private IEnumerator Run()
        {
            if (Try("load", "level", PrepareLevel)) yield return Body();
            Finished = true;
        }

        private IEnumerator Body()
        {
            AsyncOperation loading = null;
            if (!Try("load", "engine", () => loading = SceneManager.LoadSceneAsync(m_scene, LoadSceneMode.Additive))) yield break;
            if (loading == null)
            {
                Fail("load", "engine", "cannot load " + m_scene + " (is it in the build settings?)", "open the project once in the editor and check File > Build Settings");
                yield break;
            }
            while (!loading.isDone) yield return null;
            m_sceneLoaded = true;

            // ABGameWorld.Start decodes the level (before Update). This coroutine resumes after Update,
            // so the first time the world is seen, no physics step has touched the new bodies: step 0.
            int waited = 0;
            while (!WorldDecoded())
            {
                if (++waited > MaxWaitFrames)
                {
                    Fail("load", "engine", "ABGameWorld did not decode the level within " + MaxWaitFrames + " frames", "see the editor log for an exception in ABGameWorld.Start");
                    yield return Cleanup();
                    yield break;
                }
                yield return null;
            }
            if (!Try("load", "engine", TakeFirstFrame)) { yield return Cleanup(); yield break; }

            for (long step = 1; step <= m_totalSteps; step++)
            {
                yield return m_afterStep;
                if (m_session.State == SessionState.Closed) { yield return Cleanup(); yield break; }
                if (m_session.CancelRequested)
                {
                    Fail("cancelled", "engine", "cancelled", null);
                    yield return Cleanup();
                    yield break;
                }
                long current = step;
                if (!Try("simulate", "engine", () => AfterStep(current))) { yield return Cleanup(); yield break; }
                if (!Try("capture", "engine", () => CaptureAt(current))) { yield return Cleanup(); yield break; }
            }
            if (!Try("simulate", "engine", SendRest)) { yield return Cleanup(); yield break; }
            yield return Cleanup();
            Try("simulate", "engine", SendDone);
        }

        private void PrepareLevel()
        {
            m_xmlObjects = LevelObjects.Parse(m_load.Xml);
            Time.timeScale = Mathf.Max(0.1f, m_timeScale);
            // The evaluator's own path: the XML through LevelLoader, index 0 selected for ABGameWorld.
            LevelList.Instance.LoadLevelsFromSource(new[] { m_load.Xml });
            LevelList.Instance.CurrentIndex = 0;
        }

        private static bool WorldDecoded()
        {
            // DecodeLevel instantiates the slingshot (named "Slingshot") before any bird, pig or block.
            return UnityEngine.Object.FindObjectOfType<ABGameWorld>() != null && GameObject.Find("Slingshot") != null;
        }

        private void TakeFirstFrame()
        {
            m_tracker = BodyTracker.Attach(m_xmlObjects);
            m_batcher = new FrameBatcher(m_tracker.Count, (int)m_load.Settings.FramesPerBatch);
            // Time.fixedDeltaTime is the float 0.02 (TimeManager.asset); announce it as the decimal it stands for.
            Send(m_session.Loaded(Math.Round(Time.fixedDeltaTime, 6), m_tracker.Bodies));
            m_tracker.Sample(0, m_batcher, m_pending);
            EndStep(0);
        }

        private void AfterStep(long step)
        {
            m_tracker.DrainContacts(step, m_pending);
            m_tracker.Sample(step, m_batcher, m_pending);
            EndStep(step);
        }

        private void EndStep(long step)
        {
            FrameBatch batch = m_batcher.EndStep();
            if (batch == null && step == m_totalSteps) batch = m_batcher.Flush();
            if (batch == null) return;
            if (m_pending.Count > 0)
            {
                m_eventCount += m_pending.Count;
                Send(m_session.Events(m_pending));
                m_pending = new List<SimEvent>();
            }
            Send(m_session.Frames(batch));
        }

        /// <summary>The similarity scene's sequence, counted in physics steps after the window.</summary>
        private void CaptureAt(long step)
        {
            if (!m_load.Settings.Capture) return;
            long after = step - m_load.Settings.WindowSteps;
            if (after == BoundDelaySteps) m_capture.FrameStructure();
            if (after == RawDelaySteps)
            {
                if (m_load.Settings.CaptureRaw) m_raw = m_capture.Render();
                m_capture.UseOcrSprites();
            }
            if (after == CaptureDelaySteps) m_png = m_capture.Render();
        }

        private void SendRest()
        {
            if (m_pending.Count > 0)
            {
                m_eventCount += m_pending.Count;
                Send(m_session.Events(m_pending));
                m_pending = new List<SimEvent>();
            }
            if (m_load.Settings.Capture)
            {
                if (m_png == null) throw new InvalidOperationException("the capture was not rendered");
                Send(m_session.Capture(m_png, m_raw));
            }
        }

        private void SendDone()
        {
            if (m_failed) return;
            Send(m_session.Done(new RunSummary { Steps = m_totalSteps, Bodies = m_tracker.Count, Events = m_eventCount, ElapsedMs = Math.Round(m_watch.Elapsed.TotalMilliseconds) }));
        }

        private IEnumerator Cleanup()
        {
            if (m_tracker != null) m_tracker.Detach();
            if (m_sceneLoaded)
            {
                m_sceneLoaded = false;
                AsyncOperation unloading = SceneManager.UnloadSceneAsync(m_scene);
                if (unloading != null)
                {
                    while (!unloading.isDone) yield return null;
                }
                yield return null;
            }
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
                return true;
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
            if (m_session.State == SessionState.Running && m_session.Run == m_load) Send(m_session.Failed(phase, fault, text, hint));
        }
    }
}
