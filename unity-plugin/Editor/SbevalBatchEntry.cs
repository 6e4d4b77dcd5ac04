// sbeval bridge, editor side: the batch-mode entry point. The ICE evaluator only runs from a menu in
// the editor; this starts the same world headlessly:
//   Unity -batchmode -projectPath <project> -executeMethod Sbeval.Bridge.EditorTools.SbevalBatchEntry.Run
//         -sbevalUrl ws://127.0.0.1:<port> [-sbevalToken <token> | env SBEVAL_TOKEN] [-sbevalInstance <name>]
//         -logFile <file>
// (no -quit: the editor stays in play mode serving levels until the orchestrator says bye; no
// -nographics: the capture needs the GPU). It opens an empty scene and enters play mode; at play-mode
// start SbevalBootstrap reads the same arguments and starts the engine host.

using System;
using Sbeval.Bridge.Unity;
using UnityEditor;
using UnityEditor.SceneManagement;
using UnityEngine;

namespace Sbeval.Bridge.EditorTools
{
    public static class SbevalBatchEntry
    {
        public static void Run()
        {
            SbevalStage.Reached(SbevalStage.EntryMethodRan);
            string[] args = Environment.GetCommandLineArgs();
            SbevalLaunchOptions options = SbevalBootstrap.FromCommandLine(args, Environment.GetEnvironmentVariable("SBEVAL_TOKEN"));
            if (options == null)
            {
                Debug.LogError("[sbeval] missing -sbevalUrl (and a token: -sbevalToken or SBEVAL_TOKEN); nothing to do");
                EditorApplication.Exit(2);
                return;
            }
            Debug.Log("[sbeval] batch entry: entering play mode to serve " + options.Url + (options.Instance != null ? " as " + options.Instance : ""));
            EditorSceneManager.NewScene(NewSceneSetup.EmptyScene, NewSceneMode.Single);
            EditorApplication.isPlaying = true;
        }
    }

    /// <summary>
    /// In a batch-mode editor started for sbeval, leaving play mode means the engine is done or broke:
    /// exit, so the launcher sees the process end (and restarts it if it was not asked to quit).
    /// </summary>
    [InitializeOnLoad]
    public static class SbevalPlayModeWatch
    {
        static SbevalPlayModeWatch()
        {
            if (!Application.isBatchMode) return;
            if (Array.IndexOf(Environment.GetCommandLineArgs(), "-sbevalUrl") < 0) return;
            // The editor runs [InitializeOnLoad] once the project's scripts compiled and loaded.
            SbevalStage.Reached(SbevalStage.ScriptCompiled);
            EditorApplication.playModeStateChanged += OnPlayModeChanged;
        }

        private static void OnPlayModeChanged(PlayModeStateChange change)
        {
            if (change == PlayModeStateChange.EnteredEditMode && !SbevalEngineHost.QuitRequested)
            {
                Debug.LogError("[sbeval] play mode ended unexpectedly; exiting so the launcher can restart this instance");
                EditorApplication.Exit(1);
            }
        }
    }
}
