// TEST DOUBLE — not Unity. Scene loading: a scene is a builder the game double registers under the
// scene's asset path; loading is queued and happens in a later frame's EarlyUpdate (PlayerLoop.cs).
// Signatures: Unity 2019.4.

namespace UnityEngine.SceneManagement
{
    public enum LoadSceneMode { Single = 0, Additive = 1 }

    public struct Scene
    {
        private readonly string m_path;

        internal Scene(string path) { m_path = path; }

        public string name { get { return m_path == null ? null : System.IO.Path.GetFileNameWithoutExtension(m_path); } }
        public string path { get { return m_path; } }
        public bool isLoaded { get { return m_path != null && (PlayerLoop.LoadedScenes.Contains(m_path) || m_path == PlayerLoop.ActiveScene); } }
    }

    public static class SceneManager
    {
        /// <summary>Only Additive is supported by the double (the plugin and the evaluator load additively).</summary>
        public static AsyncOperation LoadSceneAsync(string sceneName, LoadSceneMode mode)
        {
            if (mode != LoadSceneMode.Additive) throw new System.NotSupportedException("the test double loads scenes additively only");
            return PlayerLoop.QueueScene(sceneName, true);
        }

        public static AsyncOperation UnloadSceneAsync(string sceneName) { return PlayerLoop.QueueScene(sceneName, false); }
        public static Scene GetActiveScene() { return new Scene(PlayerLoop.ActiveScene); }
        public static void MoveGameObjectToScene(GameObject go, Scene scene) { PlayerLoop.MoveToScene(go, scene.path); }
    }
}
