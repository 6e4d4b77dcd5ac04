// sbeval bridge, Unity side: the stages a batch-mode editor started for sbeval passes, each logged once
// as "[sbeval] stage: <name>" so the launcher (bridge/unity-log.ts) can say where
// a silent editor stopped. "editor started" is the launcher's own (the editor wrote its log); the
// plugin logs the others as it passes them: its scripts compiled (the editor ran their
// [InitializeOnLoad]), the -executeMethod ran, play mode was entered ([RuntimeInitializeOnLoadMethod]),
// the orchestrator welcomed the engine.

using UnityEngine;

namespace Sbeval.Bridge.Unity
{
    public static class SbevalStage
    {
        public const string ScriptCompiled = "script compiled";
        public const string EntryMethodRan = "entry method ran";
        public const string PlayModeEntered = "play mode entered";
        public const string BridgeConnected = "bridge connected";

        /// <summary>Logs that the editor reached `stage` (Debug.Log is safe from any thread).</summary>
        public static void Reached(string stage)
        {
            Debug.Log("[sbeval] stage: " + stage);
        }
    }
}
