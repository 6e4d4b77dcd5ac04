// Compile-only stand-ins for the UnityEngine types the sbeval plugin uses, with the signatures of
// Unity 2019.4 (docs.unity3d.com/2019.4/Documentation/ScriptReference). Bodies never run: the real
// UnityEngine.dll replaces this assembly inside Unity. Keep members to what the plugin calls.

using System;
using System.Collections;
using System.Collections.Generic;

namespace UnityEngine
{
    public class Object
    {
        public string name { get { return null; } set { } }
        public HideFlags hideFlags { get; set; }
        public int GetInstanceID() { return 0; }
        public static void Destroy(Object obj) { }
        public static void DontDestroyOnLoad(Object target) { }
        public static T FindObjectOfType<T>() where T : Object { return null; }
        public static T[] FindObjectsOfType<T>() where T : Object { return new T[0]; }
        public static Object FindObjectOfType(Type type) { return null; }
        public static implicit operator bool(Object exists) { return exists != null; }
    }

    [Flags]
    public enum HideFlags { None = 0, HideInHierarchy = 1, HideInInspector = 2, DontSaveInEditor = 4, NotEditable = 8, DontSaveInBuild = 16, DontUnloadUnusedAsset = 32, DontSave = 52, HideAndDontSave = 61 }

    public class Component : Object
    {
        public GameObject gameObject { get { return null; } }
        public Transform transform { get { return null; } }
        public string tag { get { return null; } set { } }
        public T GetComponent<T>() { return default(T); }
        public Component GetComponent(Type type) { return null; }
        public T[] GetComponentsInChildren<T>() { return new T[0]; }
        public T GetComponentInChildren<T>() { return default(T); }
        public void SendMessage(string methodName, SendMessageOptions options) { }
    }

    public enum SendMessageOptions { RequireReceiver = 0, DontRequireReceiver = 1 }

    public class Behaviour : Component
    {
        public bool enabled { get { return false; } set { } }
        public bool isActiveAndEnabled { get { return false; } }
    }

    public class YieldInstruction { }

    public sealed class Coroutine : YieldInstruction { }

    public class MonoBehaviour : Behaviour
    {
        public Coroutine StartCoroutine(IEnumerator routine) { return null; }
        public void StopCoroutine(Coroutine routine) { }
        public void StopAllCoroutines() { }
        public void Invoke(string methodName, float time) { }
        public static void print(object message) { }
    }

    public sealed class WaitForFixedUpdate : YieldInstruction { }

    public sealed class WaitForEndOfFrame : YieldInstruction { }

    public sealed class WaitForSeconds : YieldInstruction
    {
        public WaitForSeconds(float seconds) { }
    }

    public class AsyncOperation : YieldInstruction
    {
        public bool isDone { get { return false; } }
        public float progress { get { return 0f; } }
        public bool allowSceneActivation { get; set; }
    }

    public class ScriptableObject : Object { }

    public sealed class GameObject : Object
    {
        public GameObject() { }
        public GameObject(string name) { }
        public Transform transform { get { return null; } }
        public string tag { get { return null; } set { } }
        public int layer { get; set; }
        public bool activeSelf { get { return false; } }
        public GameObject gameObject { get { return this; } }
        public T AddComponent<T>() where T : Component { return null; }
        public T GetComponent<T>() { return default(T); }
        public void SetActive(bool value) { }
        public static GameObject Find(string name) { return null; }
    }

    public class Transform : Component, IEnumerable
    {
        public Vector3 position { get; set; }
        public Vector3 localPosition { get; set; }
        public Vector3 eulerAngles { get; set; }
        public Quaternion rotation { get; set; }
        public Vector3 localScale { get; set; }
        public Transform parent { get; set; }
        public int childCount { get { return 0; } }
        public Transform GetChild(int index) { return null; }
        public IEnumerator GetEnumerator() { return new List<Transform>().GetEnumerator(); }
    }

    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public sealed class RuntimeInitializeOnLoadMethodAttribute : Attribute
    {
        public RuntimeInitializeOnLoadMethodAttribute() { }
        public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType loadType) { }
        public RuntimeInitializeLoadType loadType { get; set; }
    }

    public enum RuntimeInitializeLoadType { AfterSceneLoad = 0, BeforeSceneLoad = 1, AfterAssembliesLoaded = 2, BeforeSplashScreen = 3, SubsystemRegistration = 4 }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class RequireComponent : Attribute
    {
        public RequireComponent(Type requiredComponent) { }
    }

    [AttributeUsage(AttributeTargets.Class)]
    public sealed class CreateAssetMenuAttribute : Attribute
    {
        public string fileName { get; set; }
        public string menuName { get; set; }
    }

    public static class Application
    {
        public static string unityVersion { get { return null; } }
        public static bool isBatchMode { get { return false; } }
        public static bool isPlaying { get { return false; } }
        public static bool runInBackground { get; set; }
        public static void Quit() { }
        public static void Quit(int exitCode) { }
    }

    public static class Time
    {
        public static float timeScale { get; set; }
        public static float deltaTime { get { return 0f; } }
        public static float fixedDeltaTime { get; set; }
        public static float time { get { return 0f; } }
        public static int frameCount { get { return 0; } }
    }

    public static class Debug
    {
        public static void Log(object message) { }
        public static void LogWarning(object message) { }
        public static void LogError(object message) { }
        public static void LogException(Exception exception) { }
        public static void LogFormat(string format, params object[] args) { }
    }

    public static class Mathf
    {
        public const float Deg2Rad = 0.0174532924f;
        public const float Rad2Deg = 57.29578f;
        public static float Min(float a, float b) { return a < b ? a : b; }
        public static float Max(float a, float b) { return a > b ? a : b; }
        public static float Abs(float f) { return Math.Abs(f); }
    }
}
