// Compile-only stand-ins for the UnityEditor types the sbeval plugin uses (Unity 2019.4 signatures).

using System;
using UnityEngine.SceneManagement;

namespace UnityEditor
{
    public enum PlayModeStateChange { EnteredEditMode = 0, ExitingEditMode = 1, EnteredPlayMode = 2, ExitingPlayMode = 3 }

    public static class EditorApplication
    {
        public static bool isPlaying { get; set; }
        public static event Action<PlayModeStateChange> playModeStateChanged;
        public static void Exit(int returnValue) { }

        // Keeps the compiler from warning that the event is never used in this stand-in.
        internal static void Raise(PlayModeStateChange change)
        {
            if (playModeStateChanged != null) playModeStateChanged(change);
        }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class InitializeOnLoadAttribute : Attribute { }

    public static class AssetDatabase
    {
        public static T LoadAssetAtPath<T>(string assetPath) where T : UnityEngine.Object { return null; }
        public static string GetAssetPath(UnityEngine.Object assetObject) { return null; }
    }
}

namespace UnityEditor.SceneManagement
{
    public enum NewSceneSetup { EmptyScene = 0, DefaultGameObjects = 1 }

    public enum NewSceneMode { Single = 0, Additive = 1 }

    public static class EditorSceneManager
    {
        public static Scene NewScene(NewSceneSetup setup, NewSceneMode mode) { return new Scene(); }
    }
}
