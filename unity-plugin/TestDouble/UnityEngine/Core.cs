// TEST DOUBLE — not Unity. A small runnable stand-in for the UnityEngine types the sbeval plugin
// uses, with Unity 2019.4's public signatures (docs.unity3d.com/2019.4/Documentation/ScriptReference),
// so the plugin compiles against it exactly as against the real UnityEngine.dll and runs under mono
// in CI. Behaviour follows the documented engine where the plugin depends on it: objects and
// components, Unity's `==` on destroyed objects, MonoBehaviour messages (Awake/OnEnable at creation,
// Start before the first FixedUpdate/Update), coroutines and the player loop (PlayerLoop.cs).
// Test-only hooks are `internal` (visible to the double's other assemblies, never to the plugin).

using System;
using System.Collections;
using System.Collections.Generic;
using System.Runtime.CompilerServices;

[assembly: InternalsVisibleTo("UnityEditor")]
[assembly: InternalsVisibleTo("Assembly-CSharp-Game")]
[assembly: InternalsVisibleTo("SbevalStandInEditor")]

namespace UnityEngine
{
    public class Object
    {
        private static int s_nextId = 10000;
        private readonly int m_id;
        private string m_name = "";
        internal bool m_destroyed;

        public Object()
        {
            m_id = -System.Threading.Interlocked.Increment(ref s_nextId);
        }

        public string name { get { return m_name; } set { m_name = value ?? ""; } }
        public HideFlags hideFlags { get; set; }
        public int GetInstanceID() { return m_id; }

        public static void Destroy(Object obj) { if (obj != null) PlayerLoop.ScheduleDestroy(obj); }
        public static void DontDestroyOnLoad(Object target) { PlayerLoop.KeepAcrossLoads(target); }

        public static T FindObjectOfType<T>() where T : Object
        {
            foreach (Object o in PlayerLoop.LiveObjects())
            {
                T t = o as T;
                if (t != null) return t;
            }
            return null;
        }

        public static T[] FindObjectsOfType<T>() where T : Object
        {
            List<T> found = new List<T>();
            foreach (Object o in PlayerLoop.LiveObjects())
            {
                T t = o as T;
                if (t != null) found.Add(t);
            }
            return found.ToArray();
        }

        public static Object FindObjectOfType(Type type)
        {
            foreach (Object o in PlayerLoop.LiveObjects())
            {
                if (type.IsInstanceOfType(o)) return o;
            }
            return null;
        }

        // Unity's comparison: a destroyed object equals null (UnityEngine.Object.CompareBaseObjects).
        private static bool IsNull(Object o) { return ReferenceEquals(o, null) || o.m_destroyed; }

        public static bool operator ==(Object x, Object y)
        {
            bool xNull = IsNull(x);
            bool yNull = IsNull(y);
            if (xNull || yNull) return xNull && yNull;
            return ReferenceEquals(x, y);
        }

        public static bool operator !=(Object x, Object y) { return !(x == y); }

        public static implicit operator bool(Object exists) { return !IsNull(exists); }

        public override bool Equals(object other)
        {
            if (other != null && !(other is Object)) return false;
            return this == (Object)other;
        }

        public override int GetHashCode() { return m_id; }

        public override string ToString() { return name; }
    }

    [Flags]
    public enum HideFlags { None = 0, HideInHierarchy = 1, HideInInspector = 2, DontSaveInEditor = 4, NotEditable = 8, DontSaveInBuild = 16, DontUnloadUnusedAsset = 32, DontSave = 52, HideAndDontSave = 61 }

    public class Component : Object
    {
        internal GameObject m_gameObject;

        public GameObject gameObject { get { return m_gameObject; } }
        public Transform transform { get { return m_gameObject.transform; } }
        public string tag { get { return m_gameObject.tag; } set { m_gameObject.tag = value; } }
        public T GetComponent<T>() { return m_gameObject.GetComponent<T>(); }
        public Component GetComponent(Type type) { return m_gameObject.GetComponentOfType(type); }

        public T[] GetComponentsInChildren<T>()
        {
            List<T> found = new List<T>();
            m_gameObject.CollectInChildren(found);
            return found.ToArray();
        }

        public T GetComponentInChildren<T>()
        {
            T[] all = GetComponentsInChildren<T>();
            return all.Length > 0 ? all[0] : default(T);
        }

        public void SendMessage(string methodName, SendMessageOptions options)
        {
            bool found = false;
            foreach (Component c in m_gameObject.m_components.ToArray())
            {
                MonoBehaviour b = c as MonoBehaviour;
                if (b != null && PlayerLoop.CallMessage(b, methodName)) found = true;
            }
            if (!found && options == SendMessageOptions.RequireReceiver) Debug.LogError("SendMessage " + methodName + " has no receiver!");
        }
    }

    public enum SendMessageOptions { RequireReceiver = 0, DontRequireReceiver = 1 }

    public class Behaviour : Component
    {
        private bool m_enabled = true;

        public bool enabled
        {
            get { return m_enabled; }
            set
            {
                if (m_enabled == value) return;
                m_enabled = value;
                OnEnabledChanged();
            }
        }

        public bool isActiveAndEnabled { get { return m_enabled && m_gameObject != null && m_gameObject.activeInHierarchy; } }

        internal virtual void OnEnabledChanged() { }
    }

    public class YieldInstruction { }

    public sealed class Coroutine : YieldInstruction
    {
        internal readonly MonoBehaviour Owner;
        internal readonly Stack<IEnumerator> Frames = new Stack<IEnumerator>();
        internal bool Finished;
        /// <summary>Coroutines waiting for this one to finish.</summary>
        internal readonly List<Coroutine> Waiters = new List<Coroutine>();

        internal Coroutine(MonoBehaviour owner, IEnumerator routine)
        {
            Owner = owner;
            Frames.Push(routine);
        }
    }

    public class MonoBehaviour : Behaviour
    {
        internal bool m_awake;
        internal bool m_started;

        public Coroutine StartCoroutine(IEnumerator routine)
        {
            if (routine == null) throw new NullReferenceException("routine is null");
            return PlayerLoop.StartCoroutine(this, routine);
        }

        public void StopCoroutine(Coroutine routine) { PlayerLoop.StopCoroutine(routine); }
        public void StopAllCoroutines() { PlayerLoop.StopCoroutines(this); }
        public void Invoke(string methodName, float time) { PlayerLoop.Invoke(this, methodName, time); }
        public static void print(object message) { Debug.Log(message); }
    }

    public sealed class WaitForFixedUpdate : YieldInstruction { }

    public sealed class WaitForEndOfFrame : YieldInstruction { }

    public sealed class WaitForSeconds : YieldInstruction
    {
        internal readonly float Seconds;
        public WaitForSeconds(float seconds) { Seconds = seconds; }
    }

    public class AsyncOperation : YieldInstruction
    {
        internal bool m_done;
        internal readonly List<Coroutine> Waiters = new List<Coroutine>();
        public bool isDone { get { return m_done; } }
        public float progress { get { return m_done ? 1f : 0f; } }
        public bool allowSceneActivation { get; set; }
    }

    public class ScriptableObject : Object { }

    public sealed class GameObject : Object
    {
        internal readonly List<Component> m_components = new List<Component>();
        private readonly Transform m_transform;
        private bool m_active = true;
        /// <summary>The scene this object belongs to (its root's); "DontDestroyOnLoad" for kept objects.</summary>
        internal string m_scene;

        public GameObject() : this("New Game Object") { }

        public GameObject(string name)
        {
            this.name = name;
            m_transform = new Transform();
            m_transform.m_gameObject = this;
            m_components.Add(m_transform);
            PlayerLoop.Register(this);
        }

        public Transform transform { get { return m_transform; } }
        public string tag { get; set; }
        public int layer { get; set; }
        public bool activeSelf { get { return m_active; } }

        public bool activeInHierarchy
        {
            get
            {
                for (Transform t = m_transform; t != null; t = t.parent)
                {
                    if (!t.gameObject.m_active) return false;
                }
                return true;
            }
        }

        public GameObject gameObject { get { return this; } }

        public T AddComponent<T>() where T : Component
        {
            T c = (T)Activator.CreateInstance(typeof(T), true);
            c.m_gameObject = this;
            m_components.Add(c);
            PlayerLoop.Register(c);
            MonoBehaviour b = c as MonoBehaviour;
            if (b != null) PlayerLoop.Awaken(b);
            return c;
        }

        public T GetComponent<T>()
        {
            foreach (Component c in m_components)
            {
                if (!c.m_destroyed && c is T) return (T)(object)c;
            }
            return default(T);
        }

        internal Component GetComponentOfType(Type type)
        {
            foreach (Component c in m_components)
            {
                if (!c.m_destroyed && type.IsInstanceOfType(c)) return c;
            }
            return null;
        }

        internal void CollectInChildren<T>(List<T> into)
        {
            foreach (Component c in m_components)
            {
                if (!c.m_destroyed && c is T) into.Add((T)(object)c);
            }
            foreach (Transform child in m_transform) child.gameObject.CollectInChildren(into);
        }

        public void SetActive(bool value) { m_active = value; }

        public static GameObject Find(string name)
        {
            foreach (Object o in PlayerLoop.LiveObjects())
            {
                GameObject g = o as GameObject;
                if (g != null && g.name == name && g.activeInHierarchy) return g;
            }
            return null;
        }
    }

    /// <summary>Positions are world positions; a parent only groups (the double has no transform hierarchy math).</summary>
    public class Transform : Component, IEnumerable
    {
        private Vector3 m_position;
        private float m_angle;
        private Transform m_parent;
        private readonly List<Transform> m_children = new List<Transform>();

        public Vector3 position { get { return m_position; } set { m_position = value; } }
        public Vector3 localPosition { get { return m_position; } set { m_position = value; } }
        public Vector3 eulerAngles { get { return new Vector3(0f, 0f, Normalize(m_angle)); } set { m_angle = Normalize(value.z); } }
        public Quaternion rotation { get { return Quaternion.Euler(0f, 0f, m_angle); } set { m_angle = Normalize(value.eulerAngles.z); } }
        public Vector3 localScale { get; set; }

        public Transform()
        {
            localScale = new Vector3(1f, 1f, 1f);
        }

        public Transform parent
        {
            get { return m_parent; }
            set
            {
                if (m_parent != null) m_parent.m_children.Remove(this);
                m_parent = value;
                if (value != null)
                {
                    value.m_children.Add(this);
                    PlayerLoop.MoveToScene(gameObject, value.gameObject.m_scene);
                }
            }
        }

        public int childCount { get { return LiveChildren().Count; } }
        public Transform GetChild(int index) { return LiveChildren()[index]; }
        public IEnumerator GetEnumerator() { return LiveChildren().GetEnumerator(); }

        internal List<Transform> LiveChildren()
        {
            List<Transform> live = new List<Transform>();
            foreach (Transform t in m_children)
            {
                if (!t.m_destroyed) live.Add(t);
            }
            return live;
        }

        /// <summary>The body's angle as Rigidbody2D.rotation keeps it: degrees, not wrapped (eulerAngles wraps to [0, 360)).</summary>
        internal float AngleDegrees { get { return m_angle; } set { m_angle = value; } }

        // Unity reports euler angles in [0, 360).
        private static float Normalize(float degrees)
        {
            float a = degrees % 360f;
            return a < 0f ? a + 360f : a;
        }
    }

    [AttributeUsage(AttributeTargets.Method, AllowMultiple = false)]
    public sealed class RuntimeInitializeOnLoadMethodAttribute : Attribute
    {
        public RuntimeInitializeOnLoadMethodAttribute() { loadType = RuntimeInitializeLoadType.AfterSceneLoad; }
        public RuntimeInitializeOnLoadMethodAttribute(RuntimeInitializeLoadType loadType) { this.loadType = loadType; }
        public RuntimeInitializeLoadType loadType { get; set; }
    }

    public enum RuntimeInitializeLoadType { AfterSceneLoad = 0, BeforeSceneLoad = 1, AfterAssembliesLoaded = 2, BeforeSplashScreen = 3, SubsystemRegistration = 4 }

    [AttributeUsage(AttributeTargets.Field)]
    public sealed class SerializeField : Attribute { }

    [AttributeUsage(AttributeTargets.Class, AllowMultiple = true)]
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

    /// <summary>The graphics device: Null when the editor was started with -nographics (Rasteriser.NoGraphics), as Unity reports it.</summary>
    public static class SystemInfo
    {
        public static Rendering.GraphicsDeviceType graphicsDeviceType { get { return Rasteriser.NoGraphics ? Rendering.GraphicsDeviceType.Null : Rendering.GraphicsDeviceType.OpenGLCore; } }
        public static string graphicsDeviceName { get { return Rasteriser.NoGraphics ? "Null Device" : "sbeval test double rasteriser"; } }
    }

    public static class Application
    {
        internal static bool s_batchMode;
        internal static bool s_playing;
        public static string unityVersion { get { return "2019.4.40f1-double"; } }
        public static bool isBatchMode { get { return s_batchMode; } }
        public static bool isPlaying { get { return s_playing; } }
        public static bool isEditor { get { return true; } }
        public static bool runInBackground { get; set; }
        public static void Quit() { Quit(0); }
        public static void Quit(int exitCode) { PlayerLoop.RequestExit(exitCode); }
    }

    public static class Time
    {
        public static float timeScale
        {
            get { return PlayerLoop.TimeScale; }
            set
            {
                if (value < 0f) throw new ArgumentException("Time.timeScale must be non-negative");
                if (value != PlayerLoop.TimeScale) PlayerLoop.Trace("Time.timeScale = " + value.ToString(System.Globalization.CultureInfo.InvariantCulture));
                PlayerLoop.TimeScale = value;
            }
        }

        public static float deltaTime { get { return PlayerLoop.InFixedStep ? PlayerLoop.FixedDeltaTime : PlayerLoop.DeltaTime; } }
        public static float fixedDeltaTime { get { return PlayerLoop.FixedDeltaTime; } set { PlayerLoop.FixedDeltaTime = value; } }
        public static float maximumDeltaTime { get { return PlayerLoop.MaximumDeltaTime; } set { PlayerLoop.MaximumDeltaTime = value; } }
        public static float time { get { return (float)PlayerLoop.GameTime; } }
        public static float unscaledDeltaTime { get { return PlayerLoop.UnscaledDeltaTime; } }
        public static int frameCount { get { return PlayerLoop.FrameCount; } }
    }

    public static class Debug
    {
        public static void Log(object message) { PlayerLoop.Log(Convert.ToString(message)); }
        public static void LogWarning(object message) { PlayerLoop.Log("Warning: " + Convert.ToString(message)); }
        public static void LogError(object message) { PlayerLoop.Log("Error: " + Convert.ToString(message)); }
        public static void LogException(Exception exception) { PlayerLoop.Log("Exception: " + exception); }
        public static void LogFormat(string format, params object[] args) { Log(string.Format(format, args)); }
        public static void DrawLine(Vector3 start, Vector3 end, Color color) { }
    }

    public static class Mathf
    {
        public const float Deg2Rad = 0.0174532924f;
        public const float Rad2Deg = 57.29578f;
        public static float Min(float a, float b) { return a < b ? a : b; }
        public static float Max(float a, float b) { return a > b ? a : b; }
        public static float Abs(float f) { return Math.Abs(f); }
        public static float Sqrt(float f) { return (float)Math.Sqrt(f); }
        public static float Sin(float f) { return (float)Math.Sin(f); }
        public static float Cos(float f) { return (float)Math.Cos(f); }
    }
}

namespace UnityEngine.Rendering
{
    /// <summary>Unity 2019.4's values (UnityEngine.Rendering.GraphicsDeviceType).</summary>
    public enum GraphicsDeviceType { OpenGL2 = 0, Direct3D9 = 1, Direct3D11 = 2, PlayStation3 = 3, Null = 4, Xbox360 = 6, OpenGLES2 = 8, OpenGLES3 = 11, PlayStationVita = 12, PlayStation4 = 13, XboxOne = 14, PlayStationMobile = 15, Metal = 16, OpenGLCore = 17, Direct3D12 = 18, N3DS = 19, Vulkan = 21, Switch = 22, XboxOneD3D12 = 23 }
}
