// sbeval bridge: the protocol's messages as C# types (bridge/PROTOCOL.md §4). Field order in the
// encoders (Protocol.cs) is the order of the tables there. Optional fields are null when absent.

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

    /// <summary>One event; which fields are used depends on Kind (contact, damage, destroyed, removed, explosion).</summary>
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

    public sealed class RunSummary
    {
        public long Steps;
        public long Bodies;
        public long Events;
        public double ElapsedMs;
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
}
