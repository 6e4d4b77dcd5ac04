// sbeval bridge, Unity side: the engine host. Lives for the whole play session (DontDestroyOnLoad),
// owns the BridgeClient (whose socket work runs on background tasks), and runs every level it is
// handed on the main thread, one at a time, through the game's own LevelList / ABGameWorld
// (LevelRun). It gives the running level the three moments it needs in Unity's player loop: before
// each physics step (FixedUpdate), after each physics step (a WaitForFixedUpdate clock), and the end
// of each frame's scripts (LateUpdate). Started by SbevalBootstrap when the command line has -sbevalUrl.

using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.Threading;
using UnityEngine;
#if UNITY_EDITOR
using UnityEditor;
#endif

namespace Sbeval.Bridge.Unity
{
    public sealed class SbevalLaunchOptions
    {
        public Uri Url;
        public string Token;
        public string Instance;
        /// <summary>Time.timeScale during the stability pass (the stability scene's inspector value is 10; the image pass uses the similarity scene's 5).</summary>
        public float TimeScale = 10f;
        /// <summary>Wall-clock seconds a world scene may take to load and decode the level (LevelRun).</summary>
        public double LoadTimeoutSeconds = 120;
    }

    public sealed class SbevalEngineHost : MonoBehaviour
    {
        /// <summary>Version of this plugin: sbeval's own (package.json), which ships it.</summary>
        public const string PluginVersion = "0.1.0";

        /// <summary>Set when the host ends the process on purpose (the editor watch then stays quiet).</summary>
        public static bool QuitRequested { get; private set; }

        private SbevalLaunchOptions m_options;
        private BridgeClient m_client;
        private CaptureRenderer m_capture;
        private LevelRun m_running;
        private readonly Queue<HostCommand> m_waiting = new Queue<HostCommand>();
        private bool m_quitting;

        public static SbevalEngineHost Launch(SbevalLaunchOptions options)
        {
            GameObject go = new GameObject("sbeval bridge");
            DontDestroyOnLoad(go);
            SbevalEngineHost host = go.AddComponent<SbevalEngineHost>();
            host.m_options = options;
            return host;
        }

        private void Start()
        {
            // The game parses level numbers with the current culture (LevelLoader uses Convert.ToDouble):
            // the competition files use '.', so read them as the evaluator's machines did.
            CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
            Thread.CurrentThread.CurrentCulture = CultureInfo.InvariantCulture;
            Application.runInBackground = true;

            m_capture = CaptureRenderer.Create();
            Capabilities capabilities = new Capabilities
            {
                Frames = true,
                Events = true,
                Capture = m_capture.Available,
                CaptureRaw = m_capture.Available,
                Cancel = true,
            };
            m_client = new BridgeClient(new BridgeClientOptions
            {
                Url = m_options.Url,
                Token = m_options.Token,
                Instance = m_options.Instance,
                Engine = new EngineIdentity
                {
                    Kind = "unity",
                    Version = Application.unityVersion,
                    // The plugin's own version: what decides its results besides the editor (cache entries record it).
                    Build = PluginVersion,
                    Description = "Science Birds (ICE evaluator) with the sbeval plugin " + PluginVersion + (m_capture.Available ? "" : " (no capture: " + m_capture.Unavailable + ")"),
                },
                Capabilities = capabilities,
                Log = line => Debug.Log("[sbeval] " + line),
                Connected = () => SbevalStage.Reached(SbevalStage.BridgeConnected),
            });
            m_client.Start();
            StartCoroutine(PhysicsClock());
            Debug.Log("[sbeval] engine host started, dialling " + m_options.Url);
            Debug.Log("[sbeval] graphics device: " + SystemInfo.graphicsDeviceType);
        }

        /// <summary>Before each physics step: a freshly decoded level is seen here, before its first step.</summary>
        private void FixedUpdate()
        {
            if (m_running != null) m_running.BeforeStep();
        }

        /// <summary>Resumes after every physics step (WaitForFixedUpdate), whatever else the running level is waiting for.</summary>
        private IEnumerator PhysicsClock()
        {
            WaitForFixedUpdate afterStep = new WaitForFixedUpdate();
            while (true)
            {
                yield return afterStep;
                if (m_running != null) m_running.AfterStep();
            }
        }

        /// <summary>After this frame's Update (objects destroyed in it are gone): the level's removals and frames go out.</summary>
        private void LateUpdate()
        {
            if (m_running != null) m_running.AfterFrame();
        }

        private void Update()
        {
            if (m_client == null || m_quitting) return;
            if (m_client.Status == ClientStatus.Failed)
            {
                Debug.LogError("[sbeval] " + m_client.Failure);
                Quit(1);
                return;
            }
            if (m_client.Status == ClientStatus.Stopped && m_running == null)
            {
                Quit(0);
                return;
            }
            HostCommand command;
            while (m_client.TryTakeCommand(out command))
            {
                if (command.Message is ByeMessage)
                {
                    Quit(0);
                    return;
                }
                if (command.Message is LoadMessage) m_waiting.Enqueue(command);
                // `cancel` is applied by the session itself (EngineSession.CancelRequested).
            }
            if (m_running != null && m_running.Finished) m_running = null;
            if (m_running == null && m_waiting.Count > 0)
            {
                HostCommand next = m_waiting.Dequeue();
                if (next.Session.State == SessionState.Closed) return; // its connection is gone
                m_running = new LevelRun(this, m_client, next.Session, (LoadMessage)next.Message, m_capture, m_options.TimeScale, m_options.LoadTimeoutSeconds);
                StartCoroutine(m_running.Execute());
            }
        }

        private void Quit(int code)
        {
            m_quitting = true;
            QuitRequested = true;
            try
            {
                if (m_client != null && m_client.Status == ClientStatus.Running) m_client.Stop("engine quitting");
            }
            catch (Exception e)
            {
                // Nothing may keep the editor from exiting: the launcher waits for it.
                Debug.LogException(e);
            }
            Time.timeScale = 1f;
            Debug.Log("[sbeval] quitting with exit code " + code);
#if UNITY_EDITOR
            EditorApplication.Exit(code);
#else
            Application.Quit(code);
#endif
        }

        private void OnApplicationQuit()
        {
            if (m_client != null && m_client.Status == ClientStatus.Running) m_client.Stop("engine quitting");
        }
    }

    /// <summary>Starts the host when the process was launched for sbeval (command line has -sbevalUrl).</summary>
    public static class SbevalBootstrap
    {
        [RuntimeInitializeOnLoadMethod(RuntimeInitializeLoadType.AfterSceneLoad)]
        private static void Boot()
        {
            SbevalLaunchOptions options = FromCommandLine(Environment.GetCommandLineArgs(), Environment.GetEnvironmentVariable("SBEVAL_TOKEN"));
            if (options == null) return;
            SbevalStage.Reached(SbevalStage.PlayModeEntered);
            SbevalEngineHost.Launch(options);
        }

        /// <summary>-sbevalUrl ws://host:port [-sbevalToken T] [-sbevalInstance name] [-sbevalTimeScale x] [-sbevalLoadTimeout seconds]; null without -sbevalUrl.</summary>
        public static SbevalLaunchOptions FromCommandLine(string[] args, string tokenFromEnvironment)
        {
            string url = Argument(args, "-sbevalUrl");
            if (url == null) return null;
            string token = Argument(args, "-sbevalToken") ?? tokenFromEnvironment;
            if (string.IsNullOrEmpty(token))
            {
                Debug.LogError("[sbeval] -sbevalUrl given without a token: pass -sbevalToken or set SBEVAL_TOKEN");
                return null;
            }
            SbevalLaunchOptions options = new SbevalLaunchOptions { Url = new Uri(url), Token = token, Instance = Argument(args, "-sbevalInstance") };
            string scale = Argument(args, "-sbevalTimeScale");
            float value;
            if (scale != null && float.TryParse(scale, NumberStyles.Float, CultureInfo.InvariantCulture, out value) && value > 0) options.TimeScale = value;
            string timeout = Argument(args, "-sbevalLoadTimeout");
            double seconds;
            if (timeout != null && double.TryParse(timeout, NumberStyles.Float, CultureInfo.InvariantCulture, out seconds) && seconds > 0) options.LoadTimeoutSeconds = seconds;
            return options;
        }

        private static string Argument(string[] args, string name)
        {
            for (int i = 0; i + 1 < args.Length; i++)
            {
                if (args[i] == name) return args[i + 1];
            }
            return null;
        }
    }
}
