// TEST DOUBLE — not Unity. The UnityEditor types the plugin uses (Unity 2019.4 signatures), run by the
// stand-in editor (TestDouble/StandIn): play mode is entered when `isPlaying` is set, Exit ends the
// process, AssetDatabase serves the assets the game double registers.

using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using UnityEngine;
using UnityEngine.SceneManagement;

[assembly: InternalsVisibleTo("SbevalStandInEditor")]
[assembly: InternalsVisibleTo("Assembly-CSharp-Game")]

namespace UnityEditor
{
    public enum PlayModeStateChange { EnteredEditMode = 0, ExitingEditMode = 1, EnteredPlayMode = 2, ExitingPlayMode = 3 }

    public static class EditorApplication
    {
        /// <summary>What the last assignment to isPlaying asked for (the stand-in editor acts on it between frames).</summary>
        internal static bool PlayRequested;

        public static bool isPlaying
        {
            get { return Application.isPlaying; }
            set { PlayRequested = value; }
        }

        public static event Action<PlayModeStateChange> playModeStateChanged;

        public static void Exit(int returnValue) { PlayerLoop.Exit(returnValue); }

        internal static void Raise(PlayModeStateChange change)
        {
            PlayerLoop.Trace("play mode: " + change);
            if (playModeStateChanged != null) playModeStateChanged(change);
        }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class InitializeOnLoadAttribute : Attribute { }

    public static class AssetDatabase
    {
        internal static readonly Dictionary<string, UnityEngine.Object> Assets = new Dictionary<string, UnityEngine.Object>();

        public static T LoadAssetAtPath<T>(string assetPath) where T : UnityEngine.Object
        {
            UnityEngine.Object asset;
            return Assets.TryGetValue(assetPath, out asset) ? asset as T : null;
        }

        public static string GetAssetPath(UnityEngine.Object assetObject)
        {
            foreach (KeyValuePair<string, UnityEngine.Object> entry in Assets)
            {
                if (ReferenceEquals(entry.Value, assetObject)) return entry.Key;
            }
            return "";
        }
    }
}

namespace UnityEditor.SceneManagement
{
    public enum NewSceneSetup { EmptyScene = 0, DefaultGameObjects = 1 }

    public enum NewSceneMode { Single = 0, Additive = 1 }

    public static class EditorSceneManager
    {
        public static Scene NewScene(NewSceneSetup setup, NewSceneMode mode)
        {
            PlayerLoop.ActiveScene = "Untitled";
            return SceneManager.GetActiveScene();
        }
    }
}
