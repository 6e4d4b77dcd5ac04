// The plugin's protocol core run outside Unity (built with mcs, run with mono) by the cross-language
// test, test/bridge/unity-plugin.test.ts:
//   ProtocolCheck.exe compat <file>      compatibility table: lines "ours<TAB>theirs" → ok | warn | incompatible
//   ProtocolCheck.exe roundtrip <url>    sends every C# sample, then echoes every message it receives
//                                        (decoded and re-encoded), answering undecodable ones with `error`
//                                        whose text starts with the ProtocolException code
//   ProtocolCheck.exe session <url>      a full engine: BridgeClient + EngineSession with a synthetic level
//                                        run (SyntheticLevel), token from SBEVAL_TOKEN, until `bye`
//   ProtocolCheck.exe window <steps…>    EvaluatorWindow for each duration: "duration start iterations end
//                                        bound raw image stepsWithCapture stepsWithout" (bridge/window.ts's twin)

using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Threading;
using Sbeval.Bridge;

namespace Sbeval.Bridge.Tests
{
    public static class ProtocolCheck
    {
        public static int Main(string[] args)
        {
            if (args.Length < 2)
            {
                Console.Error.WriteLine("usage: ProtocolCheck.exe compat <file> | roundtrip <url> | session <url>");
                return 2;
            }
            try
            {
                switch (args[0])
                {
                    case "compat": return Compat(args[1]);
                    case "roundtrip": return RoundTrip(new Uri(args[1]));
                    case "session": return Session(new Uri(args[1]), args.Length > 2 ? args[2] : null);
                    case "window": return Window(args);
                    default:
                        Console.Error.WriteLine("unknown mode " + args[0]);
                        return 2;
                }
            }
            catch (Exception e)
            {
                Console.Error.WriteLine("ProtocolCheck failed: " + e);
                return 1;
            }
        }

        private static int Compat(string file)
        {
            foreach (string line in File.ReadAllLines(file))
            {
                if (line.Length == 0) continue;
                string[] parts = line.Split('\t');
                CompatibilityResult r = Compatibility.Check(parts[0], parts.Length > 1 ? parts[1] : "");
                Console.WriteLine(!r.Ok ? "incompatible" : r.Warning != null ? "warn" : "ok");
            }
            return 0;
        }

        private static int Window(string[] args)
        {
            for (int i = 1; i < args.Length; i++)
            {
                EvaluatorWindow w = EvaluatorWindow.For(long.Parse(args[i], System.Globalization.CultureInfo.InvariantCulture));
                Console.WriteLine(string.Join(" ", new[] { w.Duration, w.StartStep, w.LoopIterations, w.EndStep, w.BoundStep, w.RawStep, w.ImageStep, w.StepsToSimulate(true), w.StepsToSimulate(false) }));
            }
            return 0;
        }

        private static int RoundTrip(Uri url)
        {
            WebSocketTransport t = WebSocketTransport.ConnectAsync(url, TimeSpan.FromSeconds(10), CancellationToken.None, null).Result;
            foreach (Message sample in Samples.All()) t.SendAsync(Protocol.Encode(sample), CancellationToken.None).Wait();
            while (true)
            {
                byte[] data = t.ReceiveAsync(Protocol.DefaultMaxMessageBytes, CancellationToken.None).Result;
                if (data == null) return 0;
                byte[] reply;
                bool last = false;
                try
                {
                    Message m = Protocol.Decode(data, null, Protocol.DefaultMaxMessageBytes);
                    reply = Protocol.Encode(m);
                    ByeMessage bye = m as ByeMessage;
                    last = bye != null && bye.Reason == "end-of-echo";
                }
                catch (ProtocolException e)
                {
                    reply = Protocol.Encode(new ErrorMessage { Phase = "protocol", Fault = "engine", Text = e.Code + ": " + e.Message });
                }
                t.SendAsync(reply, CancellationToken.None).Wait();
                if (last)
                {
                    t.CloseAsync(Protocol.CloseNormal, "done").Wait();
                    return 0;
                }
            }
        }

        private static int Session(Uri url, string instance)
        {
            string token = Environment.GetEnvironmentVariable("SBEVAL_TOKEN");
            BridgeClient client = new BridgeClient(new BridgeClientOptions
            {
                Url = url,
                Token = token,
                Instance = instance,
                Engine = new EngineIdentity { Kind = "unity", Version = "mono-test", Description = "sbeval plugin protocol core under mono (synthetic level runs)" },
                Capabilities = new Capabilities { Frames = true, Events = true, Capture = true, CaptureRaw = true, Cancel = true },
                MaxReconnectAttempts = 3,
                Log = line => Console.Error.WriteLine("plugin: " + line),
            });
            client.Start();
            while (client.Status == ClientStatus.Running)
            {
                HostCommand command;
                if (!client.TryTakeCommand(out command))
                {
                    Thread.Sleep(2);
                    continue;
                }
                LoadMessage load = command.Message as LoadMessage;
                if (load != null) SyntheticLevel.Run(client, command.Session, load);
                if (command.Message is ByeMessage) break;
            }
            client.Completion.Wait(5000);
            Console.Error.WriteLine("plugin: stopped (" + client.Status + (client.Failure != null ? ": " + client.Failure : "") + ") after " + client.Connections + " connection(s)");
            return client.Status == ClientStatus.Failed ? 1 : 0;
        }
    }

    /// <summary>
    /// A synthetic level run with states from a formula that the TypeScript test computes independently:
    /// body b (XML order) at step s: x = X + 0.001·s·(b+1), y = Y − 0.0005·s, angle = A + 0.01·s,
    /// vx = 0.05·(b+1), vy = −0.025, ω = 0.5 (each as float32); body 0 is dead from step 10.
    /// Events: contact(0, ground, 0.5) at step 1; damage(0, 5.5, −0.5) and destroyed(0) at step 10;
    /// removed(0, death) at step 35 — those within the steps run. XML markers: "sbeval-test:level-error"
    /// fails the level (fault level), "sbeval-test:slow" sleeps 50 ms per batch (to be cancelled).
    /// </summary>
    public static class SyntheticLevel
    {
        public static void Run(BridgeClient client, EngineSession session, LoadMessage load)
        {
            Stopwatch watch = Stopwatch.StartNew();
            if (load.Xml.Contains("sbeval-test:level-error"))
            {
                client.Send(session, session.Failed("load", "level", "synthetic level error: the level asked for it", "remove the marker"));
                return;
            }
            List<LevelObject> objects = LevelObjects.Parse(load.Xml);
            List<BodyInfo> bodies = new List<BodyInfo>();
            foreach (LevelObject o in objects)
            {
                bodies.Add(new BodyInfo
                {
                    Id = o.Id, Kind = o.Kind, Type = o.Type, Material = o.Material, Counted = o.Kind != "platform",
                    X = o.X, Y = o.Y, Angle = o.Rotation * Math.PI / 180.0,
                });
            }
            client.Send(session, session.Loaded(0.02, bodies));
            bool slow = load.Xml.Contains("sbeval-test:slow");
            long total = EvaluatorWindow.For(load.Settings.WindowSteps).StepsToSimulate(load.Settings.Capture);
            FrameBatcher batcher = new FrameBatcher(bodies.Count, (int)load.Settings.FramesPerBatch);
            List<SimEvent> pending = new List<SimEvent>();
            int eventCount = 0;
            for (long s = 0; s <= total; s++)
            {
                if (s == 1 && bodies.Count > 0) pending.Add(SimEvent.Contact(1, 0, -1, 0.5));
                if (s == 10 && bodies.Count > 0)
                {
                    pending.Add(SimEvent.Damage(10, 0, 5.5, -0.5));
                    pending.Add(SimEvent.Destroyed(10, 0));
                }
                if (s == 35 && bodies.Count > 0) pending.Add(SimEvent.Removed(35, 0, "death"));
                for (int b = 0; b < bodies.Count; b++)
                {
                    BodyInfo body = bodies[b];
                    batcher.Set(b, (float)(body.X + 0.001 * s * (b + 1)), (float)(body.Y - 0.0005 * s), (float)(body.Angle + 0.01 * s),
                        (float)(0.05 * (b + 1)), (float)-0.025, (float)0.5, !(b == 0 && s >= 10));
                }
                FrameBatch batch = batcher.EndStep();
                if (batch == null && s == total) batch = batcher.Flush();
                if (batch != null)
                {
                    if (session.CancelRequested || session.State == SessionState.Closed)
                    {
                        if (session.State != SessionState.Closed) client.Send(session, session.Failed("cancelled", "engine", "cancelled", null));
                        return;
                    }
                    if (pending.Count > 0)
                    {
                        eventCount += pending.Count;
                        client.Send(session, session.Events(pending));
                        pending = new List<SimEvent>();
                    }
                    client.Send(session, session.Frames(batch));
                    if (slow) Thread.Sleep(50);
                }
            }
            if (load.Settings.Capture)
            {
                byte[] png = Marker("sbeval synthetic " + load.LevelId);
                byte[] raw = load.Settings.CaptureRaw ? Marker("raw " + load.LevelId) : null;
                client.Send(session, session.Capture(png, raw));
            }
            client.Send(session, session.Done(new RunSummary { Steps = total, Bodies = bodies.Count, Events = eventCount, ElapsedMs = Math.Round(watch.Elapsed.TotalMilliseconds) }));
        }

        /// <summary>The PNG signature followed by ASCII text (stands in for a rendered image).</summary>
        private static byte[] Marker(string text)
        {
            byte[] signature = { 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a };
            byte[] body = System.Text.Encoding.ASCII.GetBytes(text);
            byte[] all = new byte[signature.Length + body.Length];
            Buffer.BlockCopy(signature, 0, all, 0, signature.Length);
            Buffer.BlockCopy(body, 0, all, signature.Length, body.Length);
            return all;
        }
    }
}
