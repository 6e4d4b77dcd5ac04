// GENERATED from bridge/messages.ts by `npm run protocol:cs`: do not edit. Change the definition
// and regenerate; test/bridge/protocol-definition.test.ts fails when this file is not what the
// definition generates.
//
// The bridge protocol's messages as C# types, with their encoders and decoders (bridge/PROTOCOL.md
// §4). Fields are in wire order; optional fields are null when absent. The helpers these call
// (Reader, Float32ToBytes, the envelope checks) are in Protocol.cs.

using System;
using System.Collections.Generic;

namespace Sbeval.Bridge
{
    /// <summary>Who sends a message.</summary>
    public enum Side { Engine, Orchestrator }

    public abstract class Message
    {
        public abstract string Type { get; }
    }

    public sealed class EngineIdentity
    {
        public string Kind;
        public string Version;
        public string Description;
        /// <summary>What else decides its results besides the version: the sbeval plugin package version (Unity), the physics digest (headless).</summary>
        public string Build;
    }

    public sealed class Capabilities
    {
        public bool Frames;
        public bool Events;
        public bool Capture;
        public bool CaptureRaw;
        public bool Cancel;
        public List<string> DamageFormulas = new List<string>();
    }

    public sealed class SimulationSettings
    {
        public long WindowSteps;
        public long Trial;
        public string Damage;
        public bool Capture;
        public bool CaptureRaw;
        public long FramesPerBatch;
    }

    public sealed class BodyInfo
    {
        public long Id;
        public string Kind;
        public string Type;
        /// <summary>Null when the object has no material (pigs, TNT, platforms).</summary>
        public string Material;
        public bool Counted;
        public double X;
        public double Y;
        public double Angle;
    }

    public sealed class RunSummary
    {
        public long Steps;
        public long Bodies;
        public long Events;
        public double ElapsedMs;
    }

    /// <summary>One SimEvent; which fields are used depends on Kind (contact, damage, destroyed, removed, explosion).</summary>
    public sealed class SimEvent
    {
        public string Kind;
        public long Step;
        public long A;
        public long B;
        public double RelativeSpeed;
        public long Id;
        public double Amount;
        public double Health;
        public string Reason;
        public double X;
        public double Y;

        public static SimEvent Contact(long step, long a, long b, double relativeSpeed)
        {
            return new SimEvent { Kind = "contact", Step = step, A = a, B = b, RelativeSpeed = relativeSpeed };
        }

        public static SimEvent Damage(long step, long id, double amount, double health)
        {
            return new SimEvent { Kind = "damage", Step = step, Id = id, Amount = amount, Health = health };
        }

        public static SimEvent Destroyed(long step, long id)
        {
            return new SimEvent { Kind = "destroyed", Step = step, Id = id };
        }

        public static SimEvent Removed(long step, long id, string reason)
        {
            return new SimEvent { Kind = "removed", Step = step, Id = id, Reason = reason };
        }

        public static SimEvent Explosion(long step, long id, double x, double y)
        {
            return new SimEvent { Kind = "explosion", Step = step, Id = id, X = x, Y = y };
        }
    }

    public sealed class HelloMessage : Message
    {
        public override string Type { get { return "hello"; } }
        public string Protocol;
        public string Token;
        public string Instance;
        public EngineIdentity Engine;
        public Capabilities Capabilities;
        public long MaxMessageBytes;
    }

    public sealed class WelcomeMessage : Message
    {
        public override string Type { get { return "welcome"; } }
        public string Protocol;
        public string SessionId;
        public string EngineId;
        public long HeartbeatMs;
        public long MaxMessageBytes;
    }

    public sealed class LoadMessage : Message
    {
        public override string Type { get { return "load"; } }
        public string RunId;
        public string LevelId;
        public string Xml;
        public SimulationSettings Settings;
    }

    public sealed class LoadedMessage : Message
    {
        public override string Type { get { return "loaded"; } }
        public string RunId;
        public double Dt;
        public List<BodyInfo> Bodies = new List<BodyInfo>();
    }

    public sealed class FramesMessage : Message
    {
        public override string Type { get { return "frames"; } }
        public string RunId;
        public long FirstStep;
        public long StepCount;
        public long BodyCount;
        /// <summary>StepCount × BodyCount × 6 values: x, y, angle, vx, vy, omega (radians, rad/s).</summary>
        public float[] States;
        /// <summary>StepCount × BodyCount bytes, 1 = alive.</summary>
        public byte[] Alive;
    }

    public sealed class EventsMessage : Message
    {
        public override string Type { get { return "events"; } }
        public string RunId;
        public List<SimEvent> Events = new List<SimEvent>();
    }

    public sealed class CaptureMessage : Message
    {
        public override string Type { get { return "capture"; } }
        public string RunId;
        public byte[] Png;
        public byte[] Raw;
    }

    public sealed class DoneMessage : Message
    {
        public override string Type { get { return "done"; } }
        public string RunId;
        public RunSummary Summary;
    }

    public sealed class ErrorMessage : Message
    {
        public override string Type { get { return "error"; } }
        public string RunId;
        public string LevelId;
        public string Phase;
        public string Fault;
        public string Text;
        public string Hint;
    }

    public sealed class CancelMessage : Message
    {
        public override string Type { get { return "cancel"; } }
        public string RunId;
    }

    public sealed class PingMessage : Message
    {
        public override string Type { get { return "ping"; } }
        public long Nonce;
    }

    public sealed class PongMessage : Message
    {
        public override string Type { get { return "pong"; } }
        public long Nonce;
    }

    public sealed class ByeMessage : Message
    {
        public override string Type { get { return "bye"; } }
        public string Reason;
    }

    public static partial class Protocol
    {
        public static readonly string[] DamageFormulas = { "contact-point", "body" };
        public static readonly string[] BodyKinds = { "block", "pig", "tnt", "platform" };
        public static readonly string[] EventKinds = { "contact", "damage", "destroyed", "removed", "explosion" };
        public static readonly string[] RemovedReasons = { "death", "out-of-world" };
        public static readonly string[] ErrorPhases = { "handshake", "protocol", "load", "simulate", "capture", "cancelled", "internal" };
        public static readonly string[] Faults = { "level", "engine" };

        /// <summary>Which side may send a type; null for unknown types.</summary>
        public static Side[] SendersOf(string type)
        {
            switch (type)
            {
                case "hello": return new[] { Side.Engine };
                case "welcome": return new[] { Side.Orchestrator };
                case "load": return new[] { Side.Orchestrator };
                case "loaded": return new[] { Side.Engine };
                case "frames": return new[] { Side.Engine };
                case "events": return new[] { Side.Engine };
                case "capture": return new[] { Side.Engine };
                case "done": return new[] { Side.Engine };
                case "error": return new[] { Side.Engine, Side.Orchestrator };
                case "cancel": return new[] { Side.Orchestrator };
                case "ping": return new[] { Side.Engine, Side.Orchestrator };
                case "pong": return new[] { Side.Engine, Side.Orchestrator };
                case "bye": return new[] { Side.Engine, Side.Orchestrator };
                default: return null;
            }
        }

        /// <summary>The message as the msgpack map that goes on the wire.</summary>
        public static MsgValue ToValue(Message message)
        {
            MsgValue map = MsgValue.NewMap().Set("type", message.Type);
            switch (message.Type)
            {
                case "hello": WriteHelloMessage((HelloMessage)message, map); return map;
                case "welcome": WriteWelcomeMessage((WelcomeMessage)message, map); return map;
                case "load": WriteLoadMessage((LoadMessage)message, map); return map;
                case "loaded": WriteLoadedMessage((LoadedMessage)message, map); return map;
                case "frames": WriteFramesMessage((FramesMessage)message, map); return map;
                case "events": WriteEventsMessage((EventsMessage)message, map); return map;
                case "capture": WriteCaptureMessage((CaptureMessage)message, map); return map;
                case "done": WriteDoneMessage((DoneMessage)message, map); return map;
                case "error": WriteErrorMessage((ErrorMessage)message, map); return map;
                case "cancel": WriteCancelMessage((CancelMessage)message, map); return map;
                case "ping": WritePingMessage((PingMessage)message, map); return map;
                case "pong": WritePongMessage((PongMessage)message, map); return map;
                case "bye": WriteByeMessage((ByeMessage)message, map); return map;
                default: throw new ArgumentException("unknown message class " + message.GetType().Name);
            }
        }

        private static MsgValue EngineIdentityValue(EngineIdentity value)
        {
            MsgValue map = MsgValue.NewMap();
            map.Set("kind", MsgValue.Of(value.Kind));
            map.Set("version", MsgValue.Of(value.Version));
            map.Set("description", MsgValue.Of(value.Description));
            if (value.Build != null) map.Set("build", MsgValue.Of(value.Build));
            return map;
        }

        private static MsgValue CapabilitiesValue(Capabilities value)
        {
            MsgValue map = MsgValue.NewMap();
            map.Set("frames", MsgValue.Of(value.Frames));
            map.Set("events", MsgValue.Of(value.Events));
            map.Set("capture", MsgValue.Of(value.Capture));
            map.Set("captureRaw", MsgValue.Of(value.CaptureRaw));
            map.Set("cancel", MsgValue.Of(value.Cancel));
            MsgValue damageFormulasList = MsgValue.NewArray();
            foreach (string item in value.DamageFormulas) damageFormulasList.Add(MsgValue.Of(item));
            map.Set("damageFormulas", damageFormulasList);
            return map;
        }

        private static MsgValue SimulationSettingsValue(SimulationSettings value)
        {
            MsgValue map = MsgValue.NewMap();
            map.Set("windowSteps", MsgValue.Of(value.WindowSteps));
            map.Set("trial", MsgValue.Of(value.Trial));
            map.Set("damage", MsgValue.Of(value.Damage));
            map.Set("capture", MsgValue.Of(value.Capture));
            map.Set("captureRaw", MsgValue.Of(value.CaptureRaw));
            map.Set("framesPerBatch", MsgValue.Of(value.FramesPerBatch));
            return map;
        }

        private static MsgValue BodyInfoValue(BodyInfo value)
        {
            MsgValue map = MsgValue.NewMap();
            map.Set("id", MsgValue.Of(value.Id));
            map.Set("kind", MsgValue.Of(value.Kind));
            map.Set("type", MsgValue.Of(value.Type));
            if (value.Material != null) map.Set("material", MsgValue.Of(value.Material));
            map.Set("counted", MsgValue.Of(value.Counted));
            map.Set("x", MsgValue.Of(value.X));
            map.Set("y", MsgValue.Of(value.Y));
            map.Set("angle", MsgValue.Of(value.Angle));
            return map;
        }

        private static MsgValue RunSummaryValue(RunSummary value)
        {
            MsgValue map = MsgValue.NewMap();
            map.Set("steps", MsgValue.Of(value.Steps));
            map.Set("bodies", MsgValue.Of(value.Bodies));
            map.Set("events", MsgValue.Of(value.Events));
            map.Set("elapsedMs", MsgValue.Of(value.ElapsedMs));
            return map;
        }

        private static MsgValue SimEventValue(SimEvent value)
        {
            MsgValue map = MsgValue.NewMap().Set("kind", value.Kind);
            switch (value.Kind)
            {
                case "contact":
                    map.Set("step", MsgValue.Of(value.Step));
                    map.Set("a", MsgValue.Of(value.A));
                    map.Set("b", MsgValue.Of(value.B));
                    map.Set("relativeSpeed", MsgValue.Of(value.RelativeSpeed));
                    return map;
                case "damage":
                    map.Set("step", MsgValue.Of(value.Step));
                    map.Set("id", MsgValue.Of(value.Id));
                    map.Set("amount", MsgValue.Of(value.Amount));
                    map.Set("health", MsgValue.Of(value.Health));
                    return map;
                case "destroyed":
                    map.Set("step", MsgValue.Of(value.Step));
                    map.Set("id", MsgValue.Of(value.Id));
                    return map;
                case "removed":
                    map.Set("step", MsgValue.Of(value.Step));
                    map.Set("id", MsgValue.Of(value.Id));
                    map.Set("reason", MsgValue.Of(value.Reason));
                    return map;
                case "explosion":
                    map.Set("step", MsgValue.Of(value.Step));
                    map.Set("id", MsgValue.Of(value.Id));
                    map.Set("x", MsgValue.Of(value.X));
                    map.Set("y", MsgValue.Of(value.Y));
                    return map;
                default: throw new ArgumentException("unknown SimEvent kind " + value.Kind);
            }
        }

        private static void WriteHelloMessage(HelloMessage message, MsgValue map)
        {
            map.Set("protocol", MsgValue.Of(message.Protocol));
            map.Set("token", MsgValue.Of(message.Token));
            if (message.Instance != null) map.Set("instance", MsgValue.Of(message.Instance));
            map.Set("engine", EngineIdentityValue(message.Engine));
            map.Set("capabilities", CapabilitiesValue(message.Capabilities));
            map.Set("maxMessageBytes", MsgValue.Of(message.MaxMessageBytes));
        }

        private static void WriteWelcomeMessage(WelcomeMessage message, MsgValue map)
        {
            map.Set("protocol", MsgValue.Of(message.Protocol));
            map.Set("sessionId", MsgValue.Of(message.SessionId));
            map.Set("engineId", MsgValue.Of(message.EngineId));
            map.Set("heartbeatMs", MsgValue.Of(message.HeartbeatMs));
            map.Set("maxMessageBytes", MsgValue.Of(message.MaxMessageBytes));
        }

        private static void WriteLoadMessage(LoadMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
            map.Set("levelId", MsgValue.Of(message.LevelId));
            map.Set("xml", MsgValue.Of(message.Xml));
            map.Set("settings", SimulationSettingsValue(message.Settings));
        }

        private static void WriteLoadedMessage(LoadedMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
            map.Set("dt", MsgValue.Of(message.Dt));
            MsgValue bodiesList = MsgValue.NewArray();
            foreach (BodyInfo item in message.Bodies) bodiesList.Add(BodyInfoValue(item));
            map.Set("bodies", bodiesList);
        }

        private static void WriteFramesMessage(FramesMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
            map.Set("firstStep", MsgValue.Of(message.FirstStep));
            map.Set("stepCount", MsgValue.Of(message.StepCount));
            map.Set("bodyCount", MsgValue.Of(message.BodyCount));
            map.Set("states", MsgValue.Of(Float32ToBytes(message.States)));
            map.Set("alive", MsgValue.Of(message.Alive));
        }

        private static void WriteEventsMessage(EventsMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
            MsgValue eventsList = MsgValue.NewArray();
            foreach (SimEvent item in message.Events) eventsList.Add(SimEventValue(item));
            map.Set("events", eventsList);
        }

        private static void WriteCaptureMessage(CaptureMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
            map.Set("png", MsgValue.Of(message.Png));
            if (message.Raw != null) map.Set("raw", MsgValue.Of(message.Raw));
        }

        private static void WriteDoneMessage(DoneMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
            map.Set("summary", RunSummaryValue(message.Summary));
        }

        private static void WriteErrorMessage(ErrorMessage message, MsgValue map)
        {
            if (message.RunId != null) map.Set("runId", MsgValue.Of(message.RunId));
            if (message.LevelId != null) map.Set("levelId", MsgValue.Of(message.LevelId));
            map.Set("phase", MsgValue.Of(message.Phase));
            map.Set("fault", MsgValue.Of(message.Fault));
            map.Set("message", MsgValue.Of(message.Text));
            if (message.Hint != null) map.Set("hint", MsgValue.Of(message.Hint));
        }

        private static void WriteCancelMessage(CancelMessage message, MsgValue map)
        {
            map.Set("runId", MsgValue.Of(message.RunId));
        }

        private static void WritePingMessage(PingMessage message, MsgValue map)
        {
            map.Set("nonce", MsgValue.Of(message.Nonce));
        }

        private static void WritePongMessage(PongMessage message, MsgValue map)
        {
            map.Set("nonce", MsgValue.Of(message.Nonce));
        }

        private static void WriteByeMessage(ByeMessage message, MsgValue map)
        {
            map.Set("reason", MsgValue.Of(message.Reason));
        }

        /// <summary>The fields of a message whose type and sender were checked (FromValue).</summary>
        private static Message ReadMessage(string type, Reader r)
        {
            switch (type)
            {
                case "hello": return ReadHelloMessage(r);
                case "welcome": return ReadWelcomeMessage(r);
                case "load": return ReadLoadMessage(r);
                case "loaded": return ReadLoadedMessage(r);
                case "frames": return ReadFramesMessage(r);
                case "events": return ReadEventsMessage(r);
                case "capture": return ReadCaptureMessage(r);
                case "done": return ReadDoneMessage(r);
                case "error": return ReadErrorMessage(r);
                case "cancel": return ReadCancelMessage(r);
                case "ping": return ReadPingMessage(r);
                case "pong": return ReadPongMessage(r);
                case "bye": return ReadByeMessage(r);
                default: throw new ProtocolException("unknown-type", "unknown message type \"" + type + "\"");
            }
        }

        private static EngineIdentity ReadEngineIdentity(Reader r)
        {
            EngineIdentity value = new EngineIdentity();
            value.Kind = r.String("kind", 64, 1);
            value.Version = r.String("version", 256, 0);
            value.Description = r.String("description", 4096, 0);
            value.Build = r.OptionalString("build", 256, 1);
            return value;
        }

        private static Capabilities ReadCapabilities(Reader r)
        {
            Capabilities value = new Capabilities();
            value.Frames = r.Bool("frames");
            value.Events = r.Bool("events");
            value.Capture = r.Bool("capture");
            value.CaptureRaw = r.Bool("captureRaw");
            value.Cancel = r.Bool("cancel");
            IList<MsgValue> damageFormulasItems = r.Array("damageFormulas", 64);
            for (int i = 0; i < damageFormulasItems.Count; i++) value.DamageFormulas.Add(r.StringItem(damageFormulasItems[i], "damageFormulas." + i, 64, 0));
            return value;
        }

        private static SimulationSettings ReadSimulationSettings(Reader r)
        {
            SimulationSettings value = new SimulationSettings();
            value.WindowSteps = r.Int("windowSteps", 0, 1000000);
            value.Trial = r.Int("trial", 1, 1000);
            value.Damage = r.Enum("damage", DamageFormulas);
            value.Capture = r.Bool("capture");
            value.CaptureRaw = r.Bool("captureRaw");
            value.FramesPerBatch = r.Int("framesPerBatch", 1, 100000);
            return value;
        }

        private static BodyInfo ReadBodyInfo(Reader r)
        {
            BodyInfo value = new BodyInfo();
            value.Id = r.Int("id", 0, long.MaxValue);
            value.Kind = r.Enum("kind", BodyKinds);
            value.Type = r.String("type", int.MaxValue, 0);
            value.Material = r.OptionalString("material", int.MaxValue, 0);
            value.Counted = r.Bool("counted");
            value.X = r.Number("x");
            value.Y = r.Number("y");
            value.Angle = r.Number("angle");
            return value;
        }

        private static RunSummary ReadRunSummary(Reader r)
        {
            RunSummary value = new RunSummary();
            value.Steps = r.Int("steps", 0, long.MaxValue);
            value.Bodies = r.Int("bodies", 0, long.MaxValue);
            value.Events = r.Int("events", 0, long.MaxValue);
            value.ElapsedMs = r.NumberAtLeast("elapsedMs", 0);
            return value;
        }

        private static SimEvent ReadSimEvent(Reader r)
        {
            string tag = r.Enum("kind", EventKinds);
            switch (tag)
            {
                case "contact": return SimEvent.Contact(r.Int("step", 0, long.MaxValue), r.Int("a", -2, long.MaxValue), r.Int("b", -2, long.MaxValue), r.Number("relativeSpeed"));
                case "damage": return SimEvent.Damage(r.Int("step", 0, long.MaxValue), r.Int("id", 0, long.MaxValue), r.Number("amount"), r.Number("health"));
                case "destroyed": return SimEvent.Destroyed(r.Int("step", 0, long.MaxValue), r.Int("id", 0, long.MaxValue));
                case "removed": return SimEvent.Removed(r.Int("step", 0, long.MaxValue), r.Int("id", 0, long.MaxValue), r.Enum("reason", RemovedReasons));
                case "explosion": return SimEvent.Explosion(r.Int("step", 0, long.MaxValue), r.Int("id", 0, long.MaxValue), r.Number("x"), r.Number("y"));
                default: throw r.Invalid("kind", "unknown");
            }
        }

        private static HelloMessage ReadHelloMessage(Reader r)
        {
            HelloMessage message = new HelloMessage();
            message.Protocol = r.String("protocol", 64, 0);
            message.Token = r.String("token", 1024, 0);
            message.Instance = r.OptionalString("instance", 256, 1);
            message.Engine = ReadEngineIdentity(r.Map("engine"));
            message.Capabilities = ReadCapabilities(r.Map("capabilities"));
            message.MaxMessageBytes = r.Int("maxMessageBytes", 1024, long.MaxValue);
            return message;
        }

        private static WelcomeMessage ReadWelcomeMessage(Reader r)
        {
            WelcomeMessage message = new WelcomeMessage();
            message.Protocol = r.String("protocol", 64, 0);
            message.SessionId = r.String("sessionId", 256, 1);
            message.EngineId = r.String("engineId", 256, 1);
            message.HeartbeatMs = r.Int("heartbeatMs", 1, long.MaxValue);
            message.MaxMessageBytes = r.Int("maxMessageBytes", 1024, long.MaxValue);
            return message;
        }

        private static LoadMessage ReadLoadMessage(Reader r)
        {
            LoadMessage message = new LoadMessage();
            message.RunId = r.String("runId", 256, 1);
            message.LevelId = r.String("levelId", 4096, 0);
            message.Xml = r.String("xml", int.MaxValue, 0);
            message.Settings = ReadSimulationSettings(r.Map("settings"));
            return message;
        }

        private static LoadedMessage ReadLoadedMessage(Reader r)
        {
            LoadedMessage message = new LoadedMessage();
            message.RunId = r.String("runId", 256, 1);
            message.Dt = r.NumberAbove("dt", 0);
            IList<MsgValue> bodiesItems = r.Array("bodies", int.MaxValue);
            for (int i = 0; i < bodiesItems.Count; i++) message.Bodies.Add(ReadBodyInfo(r.Element(bodiesItems[i], "bodies." + i)));
            return message;
        }

        private static FramesMessage ReadFramesMessage(Reader r)
        {
            FramesMessage message = new FramesMessage();
            message.RunId = r.String("runId", 256, 1);
            message.FirstStep = r.Int("firstStep", 0, long.MaxValue);
            message.StepCount = r.Int("stepCount", 1, long.MaxValue);
            message.BodyCount = r.Int("bodyCount", 0, long.MaxValue);
            byte[] states = r.Bin("states");
            r.CheckCells("states", states, 24, new[] { "stepCount", "bodyCount" }, new[] { message.StepCount, message.BodyCount });
            message.States = BytesToFloat32(states);
            byte[] alive = r.Bin("alive");
            r.CheckCells("alive", alive, 1, new[] { "stepCount", "bodyCount" }, new[] { message.StepCount, message.BodyCount });
            message.Alive = alive;
            return message;
        }

        private static EventsMessage ReadEventsMessage(Reader r)
        {
            EventsMessage message = new EventsMessage();
            message.RunId = r.String("runId", 256, 1);
            IList<MsgValue> eventsItems = r.Array("events", int.MaxValue);
            for (int i = 0; i < eventsItems.Count; i++) message.Events.Add(ReadSimEvent(r.Element(eventsItems[i], "events." + i)));
            return message;
        }

        private static CaptureMessage ReadCaptureMessage(Reader r)
        {
            CaptureMessage message = new CaptureMessage();
            message.RunId = r.String("runId", 256, 1);
            message.Png = r.Bin("png");
            message.Raw = r.OptionalBin("raw");
            return message;
        }

        private static DoneMessage ReadDoneMessage(Reader r)
        {
            DoneMessage message = new DoneMessage();
            message.RunId = r.String("runId", 256, 1);
            message.Summary = ReadRunSummary(r.Map("summary"));
            return message;
        }

        private static ErrorMessage ReadErrorMessage(Reader r)
        {
            ErrorMessage message = new ErrorMessage();
            message.RunId = r.OptionalString("runId", 256, 1);
            message.LevelId = r.OptionalString("levelId", 4096, 0);
            message.Phase = r.Enum("phase", ErrorPhases);
            message.Fault = r.Enum("fault", Faults);
            message.Text = r.String("message", 65536, 0);
            message.Hint = r.OptionalString("hint", 65536, 0);
            return message;
        }

        private static CancelMessage ReadCancelMessage(Reader r)
        {
            CancelMessage message = new CancelMessage();
            message.RunId = r.String("runId", 256, 1);
            return message;
        }

        private static PingMessage ReadPingMessage(Reader r)
        {
            PingMessage message = new PingMessage();
            message.Nonce = r.Int("nonce", 0, long.MaxValue);
            return message;
        }

        private static PongMessage ReadPongMessage(Reader r)
        {
            PongMessage message = new PongMessage();
            message.Nonce = r.Int("nonce", 0, long.MaxValue);
            return message;
        }

        private static ByeMessage ReadByeMessage(Reader r)
        {
            ByeMessage message = new ByeMessage();
            message.Reason = r.String("reason", 4096, 0);
            return message;
        }
    }
}
