// sbeval bridge: message encoding and validation (bridge/PROTOCOL.md). The C# twin of
// bridge/protocol.ts; the cross-language test (test/bridge/unity-plugin.test.ts) checks that both
// produce the same bytes and accept and refuse the same things.

using System;
using System.Collections.Generic;

namespace Sbeval.Bridge
{
    /// <summary>A violation of the protocol: send `error`, then close with CloseCode.</summary>
    public sealed class ProtocolException : Exception
    {
        public readonly string Code;
        public readonly int CloseCode;

        public ProtocolException(string code, string message) : base(message)
        {
            Code = code;
            CloseCode = Protocol.CloseCodeFor(code);
        }
    }

    public static class Protocol
    {
        /// <summary>
        /// Protocol version (semver). History: 1.0.0 — hello/welcome with token and capabilities; load,
        /// loaded, frames, events, capture, done, error, cancel, ping/pong, bye.
        /// Must stay compatible with PROTOCOL_VERSION in bridge/protocol.ts.
        /// </summary>
        public const string Version = "1.0.0";

        public const int DefaultMaxMessageBytes = 32 * 1024 * 1024;

        public const int CloseNormal = 1000;
        public const int CloseTooLarge = 1009;
        public const int CloseBadToken = 4001;
        public const int CloseIncompatible = 4002;
        public const int CloseMalformed = 4003;
        public const int CloseUnknownType = 4004;
        public const int CloseUnexpected = 4005;
        public const int CloseTimeout = 4006;

        public static readonly string[] ErrorPhases = { "handshake", "protocol", "load", "simulate", "capture", "cancelled", "internal" };
        public static readonly string[] BodyKinds = { "block", "pig", "tnt", "platform" };
        public static readonly string[] DamageFormulas = { "body", "contact-point" };

        public static int CloseCodeFor(string code)
        {
            switch (code)
            {
                case "too-large": return CloseTooLarge;
                case "bad-token": return CloseBadToken;
                case "incompatible": return CloseIncompatible;
                case "unknown-type": return CloseUnknownType;
                case "unexpected": return CloseUnexpected;
                case "timeout": return CloseTimeout;
                default: return CloseMalformed;
            }
        }

        /// <summary>Which side may send a type; null for unknown types.</summary>
        public static Side[] SendersOf(string type)
        {
            switch (type)
            {
                case "hello": case "loaded": case "frames": case "events": case "capture": case "done":
                    return new[] { Side.Engine };
                case "welcome": case "load": case "cancel":
                    return new[] { Side.Orchestrator };
                case "error": case "ping": case "pong": case "bye":
                    return new[] { Side.Engine, Side.Orchestrator };
                default:
                    return null;
            }
        }

        // ------------------------------------------------------------------------------------------
        // Encoding

        public static byte[] Encode(Message m)
        {
            return MsgPackWriter.Encode(ToValue(m));
        }

        public static MsgValue ToValue(Message message)
        {
            MsgValue map = MsgValue.NewMap().Set("type", message.Type);
            HelloMessage hello = message as HelloMessage;
            if (hello != null)
            {
                map.Set("protocol", hello.Protocol).Set("token", hello.Token);
                if (hello.Instance != null) map.Set("instance", hello.Instance);
                MsgValue formulas = MsgValue.NewArray();
                foreach (string f in hello.Capabilities.DamageFormulas) formulas.Add(MsgValue.Of(f));
                return map
                    .Set("engine", MsgValue.NewMap().Set("kind", hello.Engine.Kind).Set("version", hello.Engine.Version).Set("description", hello.Engine.Description))
                    .Set("capabilities", MsgValue.NewMap()
                        .Set("frames", hello.Capabilities.Frames)
                        .Set("events", hello.Capabilities.Events)
                        .Set("capture", hello.Capabilities.Capture)
                        .Set("captureRaw", hello.Capabilities.CaptureRaw)
                        .Set("cancel", hello.Capabilities.Cancel)
                        .Set("damageFormulas", formulas))
                    .Set("maxMessageBytes", hello.MaxMessageBytes);
            }
            WelcomeMessage welcome = message as WelcomeMessage;
            if (welcome != null)
            {
                return map.Set("protocol", welcome.Protocol).Set("sessionId", welcome.SessionId).Set("engineId", welcome.EngineId)
                    .Set("heartbeatMs", welcome.HeartbeatMs).Set("maxMessageBytes", welcome.MaxMessageBytes);
            }
            LoadMessage load = message as LoadMessage;
            if (load != null)
            {
                SimulationSettings s = load.Settings;
                return map.Set("runId", load.RunId).Set("levelId", load.LevelId).Set("xml", load.Xml)
                    .Set("settings", MsgValue.NewMap().Set("windowSteps", s.WindowSteps).Set("trial", s.Trial).Set("damage", s.Damage)
                        .Set("capture", s.Capture).Set("captureRaw", s.CaptureRaw).Set("framesPerBatch", s.FramesPerBatch));
            }
            LoadedMessage loaded = message as LoadedMessage;
            if (loaded != null)
            {
                MsgValue bodies = MsgValue.NewArray();
                foreach (BodyInfo b in loaded.Bodies)
                {
                    MsgValue body = MsgValue.NewMap().Set("id", b.Id).Set("kind", b.Kind).Set("type", b.Type);
                    if (b.Material != null) body.Set("material", b.Material);
                    bodies.Add(body.Set("counted", b.Counted).Set("x", b.X).Set("y", b.Y).Set("angle", b.Angle));
                }
                return map.Set("runId", loaded.RunId).Set("dt", loaded.Dt).Set("bodies", bodies);
            }
            FramesMessage frames = message as FramesMessage;
            if (frames != null)
            {
                return map.Set("runId", frames.RunId).Set("firstStep", frames.FirstStep).Set("stepCount", frames.StepCount)
                    .Set("bodyCount", frames.BodyCount).Set("states", Float32ToBytes(frames.States)).Set("alive", frames.Alive);
            }
            EventsMessage events = message as EventsMessage;
            if (events != null)
            {
                MsgValue list = MsgValue.NewArray();
                foreach (SimEvent e in events.Events) list.Add(EventToValue(e));
                return map.Set("runId", events.RunId).Set("events", list);
            }
            CaptureMessage capture = message as CaptureMessage;
            if (capture != null)
            {
                map.Set("runId", capture.RunId).Set("png", capture.Png);
                if (capture.Raw != null) map.Set("raw", capture.Raw);
                return map;
            }
            DoneMessage done = message as DoneMessage;
            if (done != null)
            {
                return map.Set("runId", done.RunId).Set("summary", MsgValue.NewMap().Set("steps", done.Summary.Steps).Set("bodies", done.Summary.Bodies)
                    .Set("events", done.Summary.Events).Set("elapsedMs", done.Summary.ElapsedMs));
            }
            ErrorMessage error = message as ErrorMessage;
            if (error != null)
            {
                if (error.RunId != null) map.Set("runId", error.RunId);
                if (error.LevelId != null) map.Set("levelId", error.LevelId);
                map.Set("phase", error.Phase).Set("fault", error.Fault).Set("message", error.Text);
                if (error.Hint != null) map.Set("hint", error.Hint);
                return map;
            }
            CancelMessage cancel = message as CancelMessage;
            if (cancel != null) return map.Set("runId", cancel.RunId);
            PingMessage ping = message as PingMessage;
            if (ping != null) return map.Set("nonce", ping.Nonce);
            PongMessage pong = message as PongMessage;
            if (pong != null) return map.Set("nonce", pong.Nonce);
            ByeMessage bye = message as ByeMessage;
            if (bye != null) return map.Set("reason", bye.Reason);
            throw new ArgumentException("unknown message class " + message.GetType().Name);
        }

        private static MsgValue EventToValue(SimEvent e)
        {
            MsgValue m = MsgValue.NewMap().Set("kind", e.Kind).Set("step", e.Step);
            switch (e.Kind)
            {
                case "contact": return m.Set("a", e.A).Set("b", e.B).Set("relativeSpeed", e.RelativeSpeed);
                case "damage": return m.Set("id", e.Id).Set("amount", e.Amount).Set("health", e.Health);
                case "destroyed": return m.Set("id", e.Id);
                case "removed": return m.Set("id", e.Id).Set("reason", e.Reason);
                case "explosion": return m.Set("id", e.Id).Set("x", e.X).Set("y", e.Y);
                default: throw new ArgumentException("unknown event kind " + e.Kind);
            }
        }

        /// <summary>Float32 values as little-endian bytes (PROTOCOL.md, frames).</summary>
        public static byte[] Float32ToBytes(float[] values)
        {
            byte[] bytes = new byte[values.Length * 4];
            Buffer.BlockCopy(values, 0, bytes, 0, bytes.Length);
            if (!BitConverter.IsLittleEndian)
            {
                for (int i = 0; i < bytes.Length; i += 4) Array.Reverse(bytes, i, 4);
            }
            return bytes;
        }

        public static float[] BytesToFloat32(byte[] bytes)
        {
            byte[] copy = (byte[])bytes.Clone();
            if (!BitConverter.IsLittleEndian)
            {
                for (int i = 0; i < copy.Length; i += 4) Array.Reverse(copy, i, 4);
            }
            float[] values = new float[copy.Length / 4];
            Buffer.BlockCopy(copy, 0, values, 0, copy.Length);
            return values;
        }

        // ------------------------------------------------------------------------------------------
        // Decoding and validation

        /// <summary>Decodes and validates one message; `from` null accepts any direction (tools, tests).</summary>
        public static Message Decode(byte[] data, Side? from, int maxBytes)
        {
            if (data.Length > maxBytes) throw new ProtocolException("too-large", string.Format("message of {0} bytes exceeds the limit of {1} bytes", data.Length, maxBytes));
            MsgValue value;
            try
            {
                value = MsgPackReader.Decode(data);
            }
            catch (MsgPackException e)
            {
                throw new ProtocolException("malformed", "message is not valid msgpack (" + e.Message + ")");
            }
            return FromValue(value, from);
        }

        public static Message FromValue(MsgValue value, Side? from)
        {
            if (value.Kind != MsgKind.Map) throw new ProtocolException("malformed", "message is not a msgpack map");
            MsgValue typeValue = value.Get("type");
            if (typeValue == null || typeValue.Kind != MsgKind.Str) throw new ProtocolException("malformed", "message has no string \"type\" field");
            string type = typeValue.AsString;
            Side[] senders = SendersOf(type);
            if (senders == null)
            {
                throw new ProtocolException("unknown-type", "unknown message type \"" + (type.Length > 64 ? type.Substring(0, 64) : type) + "\"");
            }
            if (from.HasValue && Array.IndexOf(senders, from.Value) < 0)
            {
                throw new ProtocolException("unexpected", "\"" + type + "\" is never sent by the " + (from.Value == Side.Engine ? "engine" : "orchestrator"));
            }
            Reader r = new Reader(type, value);
            switch (type)
            {
                case "hello":
                    {
                        Reader engine = r.Map("engine");
                        Reader caps = r.Map("capabilities");
                        Capabilities capabilities = new Capabilities
                        {
                            Frames = caps.Bool("frames"),
                            Events = caps.Bool("events"),
                            Capture = caps.Bool("capture"),
                            CaptureRaw = caps.Bool("captureRaw"),
                            Cancel = caps.Bool("cancel"),
                        };
                        foreach (MsgValue f in caps.Array("damageFormulas")) capabilities.DamageFormulas.Add(r.StringValue(f, "capabilities.damageFormulas", 64));
                        return new HelloMessage
                        {
                            Protocol = r.String("protocol", 64),
                            Token = r.String("token", 1024),
                            Instance = r.OptionalString("instance", 256, 1),
                            Engine = new EngineIdentity { Kind = engine.String("kind", 64, 1), Version = engine.String("version", 256), Description = engine.String("description", 4096) },
                            Capabilities = capabilities,
                            MaxMessageBytes = r.Int("maxMessageBytes", 1024, long.MaxValue),
                        };
                    }
                case "welcome":
                    return new WelcomeMessage
                    {
                        Protocol = r.String("protocol", 64),
                        SessionId = r.Id("sessionId"),
                        EngineId = r.Id("engineId"),
                        HeartbeatMs = r.Int("heartbeatMs", 1, long.MaxValue),
                        MaxMessageBytes = r.Int("maxMessageBytes", 1024, long.MaxValue),
                    };
                case "load":
                    {
                        Reader s = r.Map("settings");
                        return new LoadMessage
                        {
                            RunId = r.Id("runId"),
                            LevelId = r.String("levelId", 4096),
                            Xml = r.String("xml", int.MaxValue),
                            Settings = new SimulationSettings
                            {
                                WindowSteps = s.Int("windowSteps", 0, 1000000),
                                Trial = s.Int("trial", 1, 1000),
                                Damage = s.Enum("damage", DamageFormulas),
                                Capture = s.Bool("capture"),
                                CaptureRaw = s.Bool("captureRaw"),
                                FramesPerBatch = s.Int("framesPerBatch", 1, 100000),
                            },
                        };
                    }
                case "loaded":
                    {
                        LoadedMessage m = new LoadedMessage { RunId = r.Id("runId"), Dt = r.Number("dt") };
                        if (m.Dt <= 0) throw r.Invalid("dt", "must be positive");
                        IList<MsgValue> bodies = r.Array("bodies");
                        for (int i = 0; i < bodies.Count; i++)
                        {
                            Reader b = r.Element(bodies[i], "bodies." + i);
                            m.Bodies.Add(new BodyInfo
                            {
                                Id = b.Int("id", 0, long.MaxValue),
                                Kind = b.Enum("kind", BodyKinds),
                                Type = b.String("type", int.MaxValue),
                                Material = b.OptionalString("material", int.MaxValue, 0),
                                Counted = b.Bool("counted"),
                                X = b.Number("x"),
                                Y = b.Number("y"),
                                Angle = b.Number("angle"),
                            });
                        }
                        return m;
                    }
                case "frames":
                    {
                        FramesMessage m = new FramesMessage
                        {
                            RunId = r.Id("runId"),
                            FirstStep = r.Int("firstStep", 0, long.MaxValue),
                            StepCount = r.Int("stepCount", 1, long.MaxValue),
                            BodyCount = r.Int("bodyCount", 0, long.MaxValue),
                        };
                        byte[] states = r.Bin("states");
                        byte[] alive = r.Bin("alive");
                        long cells = m.StepCount * m.BodyCount;
                        if (states.LongLength != cells * 6 * 4)
                        {
                            throw new ProtocolException("malformed", string.Format("invalid \"frames\" message: states has {0} bytes, expected {1} ({2} steps × {3} bodies × 6 float32)", states.Length, cells * 24, m.StepCount, m.BodyCount));
                        }
                        if (alive.LongLength != cells) throw new ProtocolException("malformed", string.Format("invalid \"frames\" message: alive has {0} bytes, expected {1}", alive.Length, cells));
                        m.States = BytesToFloat32(states);
                        m.Alive = alive;
                        return m;
                    }
                case "events":
                    {
                        EventsMessage m = new EventsMessage { RunId = r.Id("runId") };
                        IList<MsgValue> list = r.Array("events");
                        for (int i = 0; i < list.Count; i++) m.Events.Add(ReadEvent(r.Element(list[i], "events." + i)));
                        return m;
                    }
                case "capture":
                    return new CaptureMessage { RunId = r.Id("runId"), Png = r.Bin("png"), Raw = r.OptionalBin("raw") };
                case "done":
                    {
                        Reader s = r.Map("summary");
                        double elapsed = s.Number("elapsedMs");
                        if (elapsed < 0) throw s.Invalid("elapsedMs", "must not be negative");
                        return new DoneMessage
                        {
                            RunId = r.Id("runId"),
                            Summary = new RunSummary { Steps = s.Int("steps", 0, long.MaxValue), Bodies = s.Int("bodies", 0, long.MaxValue), Events = s.Int("events", 0, long.MaxValue), ElapsedMs = elapsed },
                        };
                    }
                case "error":
                    return new ErrorMessage
                    {
                        RunId = r.OptionalString("runId", 256, 1),
                        LevelId = r.OptionalString("levelId", 4096, 0),
                        Phase = r.Enum("phase", ErrorPhases),
                        Fault = r.Enum("fault", new[] { "level", "engine" }),
                        Text = r.String("message", 65536),
                        Hint = r.OptionalString("hint", 65536, 0),
                    };
                case "cancel":
                    return new CancelMessage { RunId = r.Id("runId") };
                case "ping":
                    return new PingMessage { Nonce = r.Int("nonce", 0, long.MaxValue) };
                case "pong":
                    return new PongMessage { Nonce = r.Int("nonce", 0, long.MaxValue) };
                default:
                    return new ByeMessage { Reason = r.String("reason", 4096) };
            }
        }

        private static SimEvent ReadEvent(Reader e)
        {
            string kind = e.Enum("kind", new[] { "contact", "damage", "destroyed", "removed", "explosion" });
            long step = e.Int("step", 0, long.MaxValue);
            switch (kind)
            {
                case "contact": return SimEvent.Contact(step, e.Int("a", -2, long.MaxValue), e.Int("b", -2, long.MaxValue), e.Number("relativeSpeed"));
                case "damage": return SimEvent.Damage(step, e.Int("id", 0, long.MaxValue), e.Number("amount"), e.Number("health"));
                case "destroyed": return SimEvent.Destroyed(step, e.Int("id", 0, long.MaxValue));
                case "removed": return SimEvent.Removed(step, e.Int("id", 0, long.MaxValue), e.Enum("reason", new[] { "death", "out-of-world" }));
                default: return SimEvent.Explosion(step, e.Int("id", 0, long.MaxValue), e.Number("x"), e.Number("y"));
            }
        }

        /// <summary>Typed field access that names the message and field in every complaint.</summary>
        private sealed class Reader
        {
            private readonly string m_type;
            private readonly string m_path;
            private readonly MsgValue m_map;

            public Reader(string type, MsgValue map) : this(type, map, "") { }

            private Reader(string type, MsgValue map, string path)
            {
                m_type = type;
                m_map = map;
                m_path = path;
            }

            public ProtocolException Invalid(string field, string problem)
            {
                return new ProtocolException("malformed", "invalid \"" + m_type + "\" message: " + m_path + field + ": " + problem);
            }

            private MsgValue Required(string field)
            {
                MsgValue v = m_map.Get(field);
                if (v == null) throw Invalid(field, "missing");
                return v;
            }

            public Reader Map(string field)
            {
                MsgValue v = Required(field);
                if (v.Kind != MsgKind.Map) throw Invalid(field, "expected a map");
                return new Reader(m_type, v, m_path + field + ".");
            }

            public Reader Element(MsgValue v, string path)
            {
                if (v.Kind != MsgKind.Map) throw new ProtocolException("malformed", "invalid \"" + m_type + "\" message: " + m_path + path + ": expected a map");
                return new Reader(m_type, v, m_path + path + ".");
            }

            public IList<MsgValue> Array(string field)
            {
                MsgValue v = Required(field);
                if (v.Kind != MsgKind.Array) throw Invalid(field, "expected an array");
                return v.Items;
            }

            public string String(string field, int maxLength)
            {
                return String(field, maxLength, 0);
            }

            public string String(string field, int maxLength, int minLength)
            {
                MsgValue v = Required(field);
                if (v.Kind != MsgKind.Str) throw Invalid(field, "expected a string");
                string s = v.AsString;
                if (s.Length > maxLength) throw Invalid(field, "longer than " + maxLength + " characters");
                if (s.Length < minLength) throw Invalid(field, "empty");
                return s;
            }

            public string StringValue(MsgValue v, string path, int maxLength)
            {
                if (v.Kind != MsgKind.Str || v.AsString.Length > maxLength) throw new ProtocolException("malformed", "invalid \"" + m_type + "\" message: " + path + ": expected a short string");
                return v.AsString;
            }

            public string OptionalString(string field, int maxLength, int minLength)
            {
                return m_map.Get(field) == null ? null : String(field, maxLength, minLength);
            }

            public string Id(string field)
            {
                return String(field, 256, 1);
            }

            public string Enum(string field, string[] allowed)
            {
                string s = String(field, 64);
                if (System.Array.IndexOf(allowed, s) < 0) throw Invalid(field, "\"" + s + "\" is not one of " + string.Join(", ", allowed));
                return s;
            }

            public bool Bool(string field)
            {
                MsgValue v = Required(field);
                if (v.Kind != MsgKind.Bool) throw Invalid(field, "expected a boolean");
                return v.AsBool;
            }

            public double Number(string field)
            {
                MsgValue v = Required(field);
                if (!v.IsNumber) throw Invalid(field, "expected a number");
                double d = v.AsNumber;
                if (double.IsNaN(d) || double.IsInfinity(d)) throw Invalid(field, "expected a finite number");
                return d;
            }

            public long Int(string field, long min, long max)
            {
                MsgValue v = Required(field);
                long n;
                if (v.Kind == MsgKind.Int) n = v.AsInt;
                else if (v.Kind == MsgKind.Float && v.AsNumber == Math.Floor(v.AsNumber) && Math.Abs(v.AsNumber) <= 9007199254740991.0) n = (long)v.AsNumber;
                else throw Invalid(field, "expected an integer");
                if (n < min || n > max) throw Invalid(field, "out of range");
                return n;
            }

            public byte[] Bin(string field)
            {
                MsgValue v = Required(field);
                if (v.Kind != MsgKind.Bin) throw Invalid(field, "expected binary data");
                return v.AsBytes;
            }

            public byte[] OptionalBin(string field)
            {
                return m_map.Get(field) == null ? null : Bin(field);
            }
        }
    }
}
