// TEST DOUBLE — not Unity. The player loop of the double: one Frame() runs, in Unity 2019.4's order
// (docs.unity3d.com/2019.4/Documentation/Manual/ExecutionOrder.html, the PlayerLoop phases):
//   time       Time.deltaTime = min(real frame time × timeScale, maximumDeltaTime); the game clock advances
//   EarlyUpdate  one queued scene load/unload (UpdatePreloading: the scene's objects Awake, coroutines
//              waiting on the AsyncOperation resume at once) — a load the game double marks as slow
//              waits that many frames first —, then pending Start calls
//   FixedUpdate  while the fixed clock is behind the game clock: pending Start, every FixedUpdate, the
//              2D physics step (OnCollisionEnter2D sent during it), coroutines waiting on WaitForFixedUpdate
//   Update     pending Start, every Update, coroutines waiting on null / WaitForSeconds, Invoke calls;
//              then destroyed objects go
//   LateUpdate every LateUpdate
//   end of frame  coroutines waiting on WaitForEndOfFrame — except in an editor in batch mode, where
//              Unity never resumes them ("Batch mode and built-in coroutine compatibility")
// Build with -define:SBEVAL_DOUBLE_BROKEN_PLAYER_LOOP to step physics BEFORE FixedUpdate: a deliberately
// wrong order, used by the tests to show they catch a plugin that sees the bodies after the first step.
// The fixed-step arithmetic (Fixed Timestep 0.02, Maximum Allowed Timestep 0.02) is the evaluator
// project's TimeManager.asset; with frames slower than 2 ms at time scale 10 each frame runs one step.

using System;
using System.Collections;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Text;

namespace UnityEngine
{
    internal static class PlayerLoop
    {
        // --- time ------------------------------------------------------------------------------------
        internal static float TimeScale = 1f;
        internal static float FixedDeltaTime = 0.02f;
        internal static float MaximumDeltaTime = 0.02f;
        internal static float DeltaTime;
        internal static float UnscaledDeltaTime;
        internal static double GameTime;
        internal static double FixedTime;
        internal static int FrameCount;
        internal static bool InFixedStep;
        /// <summary>Real seconds one frame of the double takes (its frame rate); 5 ms unless the runner says otherwise.</summary>
        internal static double RealFrameSeconds = 0.005;
        /// <summary>When set, every frame advances the game clock by exactly this many fixed steps (a broken editor's timing).</summary>
        internal static int StepsPerFrame = 0;
        /// <summary>Physics steps run since the player started.</summary>
        internal static long FixedSteps;

#if SBEVAL_DOUBLE_BROKEN_PLAYER_LOOP
        internal static readonly bool BrokenOrder = true;
#else
        internal static readonly bool BrokenOrder = false;
#endif

        // --- objects ---------------------------------------------------------------------------------
        private static readonly List<Object> s_objects = new List<Object>();
        private static readonly List<MonoBehaviour> s_behaviours = new List<MonoBehaviour>();
        private static readonly List<Object> s_toDestroy = new List<Object>();
        private static readonly List<MonoBehaviour> s_deferredAwake = new List<MonoBehaviour>();
        internal const string KeptScene = "DontDestroyOnLoad";
        internal static string ActiveScene = "Untitled";
        private static string s_buildingScene;

        // --- coroutines and delayed calls --------------------------------------------------------------
        private sealed class Scheduled
        {
            public Coroutine Coroutine;
            public int Frame;
            public double Due;
        }

        private sealed class Invocation
        {
            public MonoBehaviour Target;
            public string Method;
            public double Due;
        }

        private static List<Scheduled> s_afterUpdate = new List<Scheduled>();
        private static List<Scheduled> s_afterFixed = new List<Scheduled>();
        private static List<Scheduled> s_endOfFrame = new List<Scheduled>();
        private static List<Scheduled> s_timed = new List<Scheduled>();
        private static readonly List<Invocation> s_invokes = new List<Invocation>();

        // --- scenes ----------------------------------------------------------------------------------
        private sealed class SceneOp
        {
            public string Path;
            public bool Load;
            public AsyncOperation Operation;
            /// <summary>Frames the load still takes before the scene is integrated (a slow first load).</summary>
            public int FramesLeft;
        }

        /// <summary>Set by the game double: how many frames loading this scene takes now (0: the next frame).</summary>
        internal static Func<string, int> SceneLoadFrames { get; set; }

        private static readonly Dictionary<string, Action> s_sceneBuilders = new Dictionary<string, Action>();
        private static readonly Queue<SceneOp> s_sceneOps = new Queue<SceneOp>();
        internal static readonly List<string> LoadedScenes = new List<string>();

        // --- log and exit ----------------------------------------------------------------------------
        private static readonly object s_logLock = new object();
        private static TextWriter s_log = Console.Out;
        internal static int? ExitCode;

        // =============================================================================================

        internal static void SetLog(TextWriter writer) { lock (s_logLock) s_log = writer; }

        internal static void Log(string line)
        {
            lock (s_logLock)
            {
                s_log.WriteLine(line);
                s_log.Flush();
            }
        }

        /// <summary>A line about what the double itself did (prefixed, so tests can tell it from the plugin's).</summary>
        internal static void Trace(string line) { Log("[double] " + line); }

        internal static void RequestExit(int code) { if (!ExitCode.HasValue) ExitCode = code; }

        /// <summary>Ends the process now, as EditorApplication.Exit does.</summary>
        internal static void Exit(int code)
        {
            Trace("exit " + code);
            lock (s_logLock) s_log.Flush();
            Environment.Exit(code);
        }

        internal static void RegisterScene(string path, Action build) { s_sceneBuilders[path] = build; }

        internal static void Register(Object o)
        {
            lock (s_objects) s_objects.Add(o);
            GameObject g = o as GameObject;
            if (g != null) g.m_scene = s_buildingScene ?? ActiveScene;
        }

        internal static IEnumerable<Object> LiveObjects()
        {
            Object[] snapshot;
            lock (s_objects) snapshot = s_objects.ToArray();
            foreach (Object o in snapshot)
            {
                if (o.m_destroyed) continue;
                GameObject g = o as GameObject;
                if (g != null && !g.activeInHierarchy) continue;
                Component c = o as Component;
                if (c != null && !c.m_gameObject.activeInHierarchy) continue;
                yield return o;
            }
        }

        internal static void MoveToScene(GameObject g, string scene)
        {
            g.m_scene = scene;
            foreach (Transform child in g.transform.LiveChildren()) MoveToScene(child.gameObject, scene);
        }

        internal static void KeepAcrossLoads(Object target)
        {
            GameObject g = target as GameObject;
            if (g == null && target is Component) g = ((Component)target).gameObject;
            if (g == null) return;
            Transform root = g.transform;
            while (root.parent != null) root = root.parent;
            MoveToScene(root.gameObject, KeptScene);
        }

        // --- MonoBehaviour messages --------------------------------------------------------------------

        private static readonly Dictionary<string, MethodInfo> s_methods = new Dictionary<string, MethodInfo>();

        private static MethodInfo FindMessage(Type type, string name)
        {
            string key = type.FullName + "::" + name;
            MethodInfo found;
            if (s_methods.TryGetValue(key, out found)) return found;
            for (Type t = type; t != null && t != typeof(MonoBehaviour); t = t.BaseType)
            {
                found = t.GetMethod(name, BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance | BindingFlags.DeclaredOnly);
                if (found != null) break;
            }
            s_methods[key] = found;
            return found;
        }

        /// <summary>Calls a message (Awake, Start, Update, OnCollisionEnter2D, …) if the behaviour defines it; false if it does not.</summary>
        internal static bool CallMessage(MonoBehaviour b, string name, params object[] args)
        {
            MethodInfo m = FindMessage(b.GetType(), name);
            if (m == null) return false;
            try
            {
                object result = m.Invoke(b, m.GetParameters().Length == 0 ? null : args);
                IEnumerator routine = result as IEnumerator;
                if (routine != null) StartCoroutine(b, routine);
            }
            catch (TargetInvocationException e)
            {
                Debug.LogException(e.InnerException ?? e);
            }
            return true;
        }

        private static bool Runs(MonoBehaviour b)
        {
            return !b.m_destroyed && b.enabled && b.m_gameObject.activeInHierarchy;
        }

        private static int s_instantiating;
        private static readonly List<MonoBehaviour> s_instantiated = new List<MonoBehaviour>();

        internal static void Awaken(MonoBehaviour b)
        {
            s_behaviours.Add(b);
            if (s_buildingScene != null)
            {
                s_deferredAwake.Add(b);
                return;
            }
            if (s_instantiating > 0)
            {
                s_instantiated.Add(b);
                return;
            }
            CallAwake(b);
        }

        /// <summary>
        /// Object.Instantiate of a prefab: `build` creates the object and its components (with their
        /// serialized fields set), then every new behaviour gets Awake/OnEnable, as after a clone.
        /// </summary>
        internal static GameObject Instantiate(Func<GameObject> build)
        {
            s_instantiating++;
            GameObject made;
            List<MonoBehaviour> awake;
            try
            {
                made = build();
            }
            finally
            {
                s_instantiating--;
                awake = new List<MonoBehaviour>(s_instantiated);
                if (s_instantiating == 0) s_instantiated.Clear();
            }
            if (s_instantiating == 0)
            {
                foreach (MonoBehaviour b in awake) CallAwake(b);
            }
            return made;
        }

        private static void CallAwake(MonoBehaviour b)
        {
            if (b.m_awake || !b.m_gameObject.activeInHierarchy) return;
            b.m_awake = true;
            CallMessage(b, "Awake");
            if (Runs(b)) CallMessage(b, "OnEnable");
        }

        private static void StartPending()
        {
            foreach (MonoBehaviour b in s_behaviours.ToArray())
            {
                if (b.m_started || !b.m_awake || !Runs(b)) continue;
                b.m_started = true;
                CallMessage(b, "Start");
            }
        }

        private static void Broadcast(string message)
        {
            foreach (MonoBehaviour b in s_behaviours.ToArray())
            {
                if (b.m_started && Runs(b)) CallMessage(b, message);
            }
        }

        // --- coroutines --------------------------------------------------------------------------------

        internal static Coroutine StartCoroutine(MonoBehaviour owner, IEnumerator routine)
        {
            Coroutine co = new Coroutine(owner, routine);
            Advance(co);
            return co;
        }

        internal static void StopCoroutine(Coroutine co)
        {
            if (co != null) co.Finished = true;
        }

        internal static void StopCoroutines(MonoBehaviour owner)
        {
            foreach (List<Scheduled> list in new[] { s_afterUpdate, s_afterFixed, s_endOfFrame, s_timed })
            {
                foreach (Scheduled s in list)
                {
                    if (s.Coroutine.Owner == owner) s.Coroutine.Finished = true;
                }
            }
        }

        private static void Advance(Coroutine co)
        {
            while (true)
            {
                if (co.Finished) return;
                if (co.Owner.m_destroyed)
                {
                    Finish(co);
                    return;
                }
                IEnumerator top = co.Frames.Peek();
                bool more;
                try
                {
                    more = top.MoveNext();
                }
                catch (Exception e)
                {
                    Debug.LogException(e);
                    Finish(co);
                    return;
                }
                if (!more)
                {
                    co.Frames.Pop();
                    if (co.Frames.Count == 0)
                    {
                        Finish(co);
                        return;
                    }
                    continue;
                }
                object yielded = top.Current;
                IEnumerator nested = yielded as IEnumerator;
                if (nested != null)
                {
                    co.Frames.Push(nested);
                    continue;
                }
                Schedule(co, yielded);
                return;
            }
        }

        private static void Finish(Coroutine co)
        {
            co.Finished = true;
            foreach (Coroutine waiter in co.Waiters.ToArray()) Advance(waiter);
            co.Waiters.Clear();
        }

        private static void Schedule(Coroutine co, object yielded)
        {
            Scheduled s = new Scheduled { Coroutine = co, Frame = FrameCount };
            if (yielded is WaitForFixedUpdate) s_afterFixed.Add(s);
            else if (yielded is WaitForEndOfFrame) s_endOfFrame.Add(s);
            else if (yielded is WaitForSeconds)
            {
                s.Due = GameTime + ((WaitForSeconds)yielded).Seconds;
                s_timed.Add(s);
            }
            else if (yielded is AsyncOperation && !((AsyncOperation)yielded).m_done) ((AsyncOperation)yielded).Waiters.Add(co);
            else if (yielded is Coroutine && !((Coroutine)yielded).Finished) ((Coroutine)yielded).Waiters.Add(co);
            else s_afterUpdate.Add(s);
        }

        /// <summary>Resumes the coroutines of a list that were scheduled before this point (a coroutine that yields again waits for the next one).</summary>
        private static void Resume(ref List<Scheduled> list, bool nextFrameOnly)
        {
            List<Scheduled> due = list;
            list = new List<Scheduled>();
            foreach (Scheduled s in due)
            {
                if (nextFrameOnly && s.Frame >= FrameCount)
                {
                    list.Add(s);
                    continue;
                }
                Advance(s.Coroutine);
            }
        }

        private static void ResumeTimed()
        {
            List<Scheduled> waiting = s_timed;
            s_timed = new List<Scheduled>();
            foreach (Scheduled s in waiting)
            {
                if (GameTime >= s.Due) Advance(s.Coroutine);
                else s_timed.Add(s);
            }
        }

        internal static void Invoke(MonoBehaviour target, string method, float seconds)
        {
            s_invokes.Add(new Invocation { Target = target, Method = method, Due = GameTime + seconds });
        }

        private static void RunInvokes()
        {
            foreach (Invocation i in s_invokes.ToArray())
            {
                if (GameTime < i.Due) continue;
                s_invokes.Remove(i);
                if (!i.Target.m_destroyed) CallMessage(i.Target, i.Method);
            }
        }

        // --- destruction -------------------------------------------------------------------------------

        internal static void ScheduleDestroy(Object o) { s_toDestroy.Add(o); }

        private static void ProcessDestroys()
        {
            if (s_toDestroy.Count == 0) return;
            Object[] batch = s_toDestroy.ToArray();
            s_toDestroy.Clear();
            foreach (Object o in batch) DestroyNow(o);
            Compact();
        }

        private static void DestroyNow(Object o)
        {
            if (o.m_destroyed) return;
            GameObject g = o as GameObject;
            if (g != null)
            {
                foreach (Transform child in g.transform.LiveChildren()) DestroyNow(child.gameObject);
                if (g.transform.parent != null) g.transform.parent = null;
                foreach (Component c in g.m_components) c.m_destroyed = true;
                g.m_destroyed = true;
                return;
            }
            Component comp = o as Component;
            if (comp is Transform) return; // Unity refuses to destroy a Transform on its own
            o.m_destroyed = true;
            if (comp != null) comp.m_gameObject.m_components.Remove(comp);
        }

        private static void Compact()
        {
            lock (s_objects) s_objects.RemoveAll(o => o.m_destroyed);
            s_behaviours.RemoveAll(b => b.m_destroyed);
        }

        // --- scenes ------------------------------------------------------------------------------------

        internal static AsyncOperation QueueScene(string path, bool load)
        {
            if (load && !s_sceneBuilders.ContainsKey(path))
            {
                Debug.LogError("Scene '" + path + "' couldn't be loaded because it has not been added to the build settings or the AssetBundle has not been loaded.");
                return null;
            }
            if (!load && !LoadedScenes.Contains(path))
            {
                Debug.LogError("Scene to unload is invalid: " + path);
                return null;
            }
            AsyncOperation op = new AsyncOperation();
            int frames = load && SceneLoadFrames != null ? SceneLoadFrames(path) : 0;
            s_sceneOps.Enqueue(new SceneOp { Path = path, Load = load, Operation = op, FramesLeft = frames });
            return op;
        }

        private static void ProcessSceneOp()
        {
            if (s_sceneOps.Count == 0) return;
            if (s_sceneOps.Peek().FramesLeft > 0)
            {
                s_sceneOps.Peek().FramesLeft--;
                return;
            }
            SceneOp op = s_sceneOps.Dequeue();
            if (op.Load)
            {
                s_buildingScene = op.Path;
                try
                {
                    s_sceneBuilders[op.Path]();
                }
                finally
                {
                    s_buildingScene = null;
                }
                MonoBehaviour[] awake = s_deferredAwake.ToArray();
                s_deferredAwake.Clear();
                foreach (MonoBehaviour b in awake) CallAwake(b);
                LoadedScenes.Add(op.Path);
                Trace("scene loaded: " + op.Path + " (frame " + FrameCount + ")");
            }
            else
            {
                foreach (Object o in LiveObjectsOfScene(op.Path)) DestroyNow(o);
                Compact();
                LoadedScenes.Remove(op.Path);
                Trace("scene unloaded: " + op.Path + " (frame " + FrameCount + ")");
            }
            op.Operation.m_done = true;
            foreach (Coroutine waiter in op.Operation.Waiters.ToArray()) Advance(waiter);
            op.Operation.Waiters.Clear();
        }

        private static List<Object> LiveObjectsOfScene(string scene)
        {
            List<Object> roots = new List<Object>();
            lock (s_objects)
            {
                foreach (Object o in s_objects)
                {
                    GameObject g = o as GameObject;
                    if (g != null && !g.m_destroyed && g.m_scene == scene && g.transform.parent == null) roots.Add(g);
                }
            }
            return roots;
        }

        /// <summary>True while something is loading or a scene other than the empty start scene is loaded (the runner does not idle then).</summary>
        internal static bool Busy { get { return s_sceneOps.Count > 0 || LoadedScenes.Count > 0; } }

        // --- the frame ---------------------------------------------------------------------------------

        internal static void Frame()
        {
            FrameCount++;
            UnscaledDeltaTime = (float)RealFrameSeconds;
            DeltaTime = Math.Min((float)(RealFrameSeconds * TimeScale), MaximumDeltaTime);
            if (StepsPerFrame > 0)
            {
                // The same float increments as the fixed clock's: exactly StepsPerFrame steps each frame.
                DeltaTime = FixedDeltaTime * StepsPerFrame;
                for (int i = 0; i < StepsPerFrame; i++) GameTime += FixedDeltaTime;
            }
            else GameTime += DeltaTime;

            // EarlyUpdate
            ProcessSceneOp();
            StartPending();

            // FixedUpdate: as many fixed steps as the clock owes (identical float increments, so one per frame when Δt is capped)
            while (FixedTime + FixedDeltaTime <= GameTime)
            {
                FixedTime += FixedDeltaTime;
                InFixedStep = true;
                StartPending();
                if (BrokenOrder) Physics2D.Step();
                Broadcast("FixedUpdate");
                if (!BrokenOrder) Physics2D.Step();
                FixedSteps++;
                Resume(ref s_afterFixed, false);
                InFixedStep = false;
            }

            // Update
            StartPending();
            Broadcast("Update");
            Resume(ref s_afterUpdate, true);
            ResumeTimed();
            RunInvokes();
            ProcessDestroys();

            // PreLateUpdate
            Broadcast("LateUpdate");

            // PostLateUpdate: end of frame
            if (!(Application.isEditor && Application.isBatchMode)) Resume(ref s_endOfFrame, false);
            ProcessDestroys();
        }

        internal static string Describe()
        {
            StringBuilder s = new StringBuilder();
            s.Append("frame ").Append(FrameCount).Append(", fixed steps ").Append(FixedSteps).Append(", scenes [").Append(string.Join(", ", LoadedScenes.ToArray())).Append(']');
            return s.ToString();
        }
    }
}
