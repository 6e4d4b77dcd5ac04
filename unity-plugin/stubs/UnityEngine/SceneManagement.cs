// Compile-only stand-ins (Unity 2019.4 signatures): scene loading.

namespace UnityEngine.SceneManagement
{
    public enum LoadSceneMode { Single = 0, Additive = 1 }

    public struct Scene
    {
        public string name { get { return null; } }
        public string path { get { return null; } }
        public bool isLoaded { get { return false; } }
    }

    public static class SceneManager
    {
        public static AsyncOperation LoadSceneAsync(string sceneName, LoadSceneMode mode) { return null; }
        public static AsyncOperation UnloadSceneAsync(string sceneName) { return null; }
        public static Scene GetActiveScene() { return new Scene(); }
        public static void MoveGameObjectToScene(GameObject go, Scene scene) { }
    }
}
