// TEST DOUBLE — a stand-in for the Unity editor binary, run under mono: it takes the editor's command
// line (as `sbeval unity launch` builds it), and does what the editor does with it for the sbeval
// plugin: writes the log to -logFile, "opens" -projectPath (the plugin must be installed there, else
// the -executeMethod class is missing, as in Unity), runs the [InitializeOnLoad] static constructors,
// calls the -executeMethod, and when that sets EditorApplication.isPlaying enters play mode: the
// [RuntimeInitializeOnLoadMethod] methods run, then the player loop (UnityEngine's PlayerLoop.cs) turns
// frame after frame until EditorApplication.Exit ends the process. The plugin's assemblies are the
// ones built next to this program; the game is the fake Science Birds (TestDouble/Game).
//   SbevalStandInEditor.exe -batchmode -projectPath <p> -executeMethod <Type.Method> -logFile <f> [...]
// Double-only options: -doubleFrameMs <ms> (real time one frame takes, default 5; below 2 ms at time
// scale 10 frames run faster than physics steps); -doubleBroken <mode>, an editor broken the way a real
// one may be on first contact (what `sbeval unity doctor` must tell apart):
//   no-play-mode        runs the -executeMethod but never enters play mode (it idles until killed)
//   abort-throws        ClientWebSocket.Abort() throws NotImplementedException (older Mono)
//   blank-capture       the graphics device is there (OpenGLCore) but cameras draw nothing
//   8-steps-per-frame   every frame runs 8 physics steps (Maximum Allowed Timestep capping the
//                       unscaled delta of a ~60 fps editor at time scale 10)

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;
using UnityEditor;
using UnityEngine;

namespace Sbeval.TestDouble
{
    public static class StandInEditor
    {
        public static int Main(string[] args)
        {
            string logFile = Argument(args, "-logFile");
            TextWriter log = logFile != null ? (TextWriter)new StreamWriter(logFile, true) : Console.Out;
            PlayerLoop.SetLog(log);
            PlayerLoop.Trace("stand-in editor (sbeval test double) pid " + System.Diagnostics.Process.GetCurrentProcess().Id + ": " + string.Join(" ", args));
            Application.s_batchMode = Array.IndexOf(args, "-batchmode") >= 0;
            Rasteriser.NoGraphics = Array.IndexOf(args, "-nographics") >= 0;
            string frameMs = Argument(args, "-doubleFrameMs");
            if (frameMs != null) PlayerLoop.RealFrameSeconds = double.Parse(frameMs, CultureInfo.InvariantCulture) / 1000.0;
            string broken = Argument(args, "-doubleBroken");
            if (broken != null) PlayerLoop.Trace("broken on purpose: " + broken);
            if (broken == "blank-capture") Rasteriser.Blank = true;
            else if (broken == "8-steps-per-frame") PlayerLoop.StepsPerFrame = 8;
            else if (broken != null && broken != "no-play-mode" && broken != "abort-throws")
            {
                PlayerLoop.Log("Error: unknown -doubleBroken mode " + broken);
                PlayerLoop.Exit(64);
            }

            string project = Argument(args, "-projectPath");
            if (project == null || !Directory.Exists(project))
            {
                PlayerLoop.Log("Error: couldn't open project " + project);
                PlayerLoop.Exit(1);
            }
            List<Assembly> assemblies = LoadAssemblies();
            ScienceBirds.TestDouble.Game.Install();
            if (broken == "abort-throws") ThrowingAbort(assemblies);

            // Scripts compile only if the plugin is in the project (Assets/Sbeval, `sbeval unity install`).
            bool installed = File.Exists(Path.Combine(Path.Combine(Path.Combine(project, "Assets"), "Sbeval"), Path.Combine("Runtime", "Protocol.cs")));
            foreach (Assembly a in assemblies)
            {
                foreach (Type t in Types(a))
                {
                    if (t.GetCustomAttributes(typeof(InitializeOnLoadAttribute), false).Length > 0 && (installed || !IsPlugin(t))) RuntimeHelpers.RunClassConstructor(t.TypeHandle);
                }
            }

            string method = Argument(args, "-executeMethod");
            if (method != null)
            {
                MethodInfo entry = installed ? FindMethod(assemblies, method) : null;
                if (entry == null)
                {
                    PlayerLoop.Log("Error: executeMethod method " + method + " could not be found (is the sbeval plugin installed in " + project + "?)");
                    PlayerLoop.Exit(1);
                }
                try
                {
                    entry.Invoke(null, null);
                }
                catch (TargetInvocationException e)
                {
                    PlayerLoop.Log("Exception: " + e.InnerException);
                    PlayerLoop.Exit(1);
                }
            }
            if (broken == "no-play-mode")
            {
                PlayerLoop.Trace("not entering play mode");
                while (true) Thread.Sleep(100);
            }
            if (!EditorApplication.PlayRequested)
            {
                PlayerLoop.Trace("no play mode requested; exiting");
                PlayerLoop.Exit(Array.IndexOf(args, "-quit") >= 0 ? 0 : 1);
            }

            EnterPlayMode(assemblies);
            while (true)
            {
                PlayerLoop.Frame();
                if (PlayerLoop.ExitCode.HasValue) PlayerLoop.Exit(PlayerLoop.ExitCode.Value);
                if (!EditorApplication.PlayRequested)
                {
                    Application.s_playing = false;
                    EditorApplication.Raise(PlayModeStateChange.ExitingPlayMode);
                    EditorApplication.Raise(PlayModeStateChange.EnteredEditMode);
                    PlayerLoop.Exit(0);
                }
                // An idle editor (no level loaded) does not spin a core; a busy one runs flat out.
                if (!PlayerLoop.Busy) Thread.Sleep(1);
            }
        }

        private static void EnterPlayMode(List<Assembly> assemblies)
        {
            EditorApplication.Raise(PlayModeStateChange.ExitingEditMode);
            Application.s_playing = true;
            EditorApplication.Raise(PlayModeStateChange.EnteredPlayMode);
            foreach (RuntimeInitializeLoadType when in new[] { RuntimeInitializeLoadType.BeforeSceneLoad, RuntimeInitializeLoadType.AfterSceneLoad })
            {
                foreach (Assembly a in assemblies)
                {
                    foreach (Type t in Types(a))
                    {
                        foreach (MethodInfo m in t.GetMethods(BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic))
                        {
                            object[] marks = m.GetCustomAttributes(typeof(RuntimeInitializeOnLoadMethodAttribute), false);
                            if (marks.Length > 0 && ((RuntimeInitializeOnLoadMethodAttribute)marks[0]).loadType == when) m.Invoke(null, null);
                        }
                    }
                }
            }
        }

        /// <summary>Makes the plugin's socket abort throw as ClientWebSocket.Abort() does on older Mono.</summary>
        private static void ThrowingAbort(List<Assembly> assemblies)
        {
            foreach (Assembly a in assemblies)
            {
                Type t = a.GetType("Sbeval.Bridge.WebSocketTransport");
                FieldInfo field = t != null ? t.GetField("AbortSocket", BindingFlags.Public | BindingFlags.Static) : null;
                if (field == null) continue;
                Action<System.Net.WebSockets.WebSocket> abort = ws =>
                {
                    PlayerLoop.Trace("ClientWebSocket.Abort(): throwing NotImplementedException");
                    throw new NotImplementedException();
                };
                field.SetValue(null, abort);
                return;
            }
            PlayerLoop.Log("Error: -doubleBroken abort-throws: no WebSocketTransport.AbortSocket in the plugin");
            PlayerLoop.Exit(64);
        }

        /// <summary>Every assembly next to this program (the double, the game, the plugin).</summary>
        private static List<Assembly> LoadAssemblies()
        {
            List<Assembly> loaded = new List<Assembly>();
            string dir = Path.GetDirectoryName(typeof(StandInEditor).Assembly.Location);
            string[] files = Directory.GetFiles(dir, "*.dll");
            Array.Sort(files, StringComparer.Ordinal);
            foreach (string file in files) loaded.Add(Assembly.LoadFrom(file));
            return loaded;
        }

        private static bool IsPlugin(Type t) { return t.Namespace != null && t.Namespace.StartsWith("Sbeval.Bridge", StringComparison.Ordinal); }

        private static IEnumerable<Type> Types(Assembly a)
        {
            try
            {
                return a.GetTypes();
            }
            catch (ReflectionTypeLoadException e)
            {
                List<Type> ok = new List<Type>();
                foreach (Type t in e.Types) if (t != null) ok.Add(t);
                return ok;
            }
        }

        private static MethodInfo FindMethod(List<Assembly> assemblies, string qualified)
        {
            int dot = qualified.LastIndexOf('.');
            if (dot <= 0) return null;
            string typeName = qualified.Substring(0, dot);
            string methodName = qualified.Substring(dot + 1);
            foreach (Assembly a in assemblies)
            {
                Type t = a.GetType(typeName);
                if (t == null) continue;
                MethodInfo m = t.GetMethod(methodName, BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic, null, Type.EmptyTypes, null);
                if (m != null) return m;
            }
            return null;
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
