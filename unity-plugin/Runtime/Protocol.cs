// sbeval bridge: message encoding and validation (bridge/PROTOCOL.md). The C# twin of
// bridge/protocol.ts: the envelope (size, msgpack, type, sender), the field reader and the float32
// conversion here; each message's fields, encoder and decoder in Messages.cs, generated from the
// protocol's definition (bridge/messages.ts). The cross-language test
// (test/bridge/unity-plugin.test.ts) checks that both sides produce the same bytes and accept and
// refuse the same things.

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

    public static partial class Protocol
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

        public static byte[] Encode(Message m)
        {
            return MsgPackWriter.Encode(ToValue(m));
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
            return ReadMessage(type, new Reader(type, value));
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
                return Invalid(field, ": ", problem);
            }

            private ProtocolException Invalid(string field, string separator, string problem)
            {
                return new ProtocolException("malformed", "invalid \"" + m_type + "\" message: " + m_path + field + separator + problem);
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

            public IList<MsgValue> Array(string field, int maxCount)
            {
                MsgValue v = Required(field);
                if (v.Kind != MsgKind.Array) throw Invalid(field, "expected an array");
                if (v.Items.Count > maxCount) throw Invalid(field, "more than " + maxCount + " items");
                return v.Items;
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

            public string StringItem(MsgValue v, string path, int maxLength, int minLength)
            {
                if (v.Kind != MsgKind.Str) throw Invalid(path, "expected a string");
                string s = v.AsString;
                if (s.Length > maxLength) throw Invalid(path, "longer than " + maxLength + " characters");
                if (s.Length < minLength) throw Invalid(path, "empty");
                return s;
            }

            public string OptionalString(string field, int maxLength, int minLength)
            {
                return m_map.Get(field) == null ? null : String(field, maxLength, minLength);
            }

            public string Enum(string field, string[] allowed)
            {
                string s = String(field, 64, 0);
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

            public double NumberAbove(string field, double bound)
            {
                double d = Number(field);
                if (d <= bound) throw Invalid(field, "must be more than " + bound);
                return d;
            }

            public double NumberAtLeast(string field, double bound)
            {
                double d = Number(field);
                if (d < bound) throw Invalid(field, "must be at least " + bound);
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

            /// <summary>A byte field whose length is the product of counts (cells) times bytesPerCell.</summary>
            public void CheckCells(string field, byte[] value, long bytesPerCell, string[] names, long[] counts)
            {
                long expected = bytesPerCell;
                List<string> product = new List<string>();
                for (int i = 0; i < counts.Length; i++)
                {
                    expected *= counts[i];
                    product.Add(counts[i] + " " + names[i]);
                }
                if (bytesPerCell != 1) product.Add(bytesPerCell + " bytes");
                if (value.LongLength != expected) throw Invalid(field, " has ", value.Length + " bytes, expected " + expected + " (" + string.Join(" × ", product.ToArray()) + ")");
            }
        }
    }
}
