// sbeval bridge: a small msgpack codec (no dependencies: NuGet packages are not available to every
// Science Birds checkout, and the protocol needs only maps, arrays, strings, numbers, booleans, bin).
// Writes canonical msgpack exactly as bridge/PROTOCOL.md §2 specifies, so that this codec and the
// TypeScript side (msgpackr, useRecords: false, variableMapSize: true) produce identical bytes.
//
// Language level: the C# subset that Unity 2019.4 and Mono's mcs both accept (no local functions, no
// switch type patterns, nothing from C# 8).

using System;
using System.Collections.Generic;
using System.Text;

namespace Sbeval.Bridge
{
    public enum MsgKind { Nil, Bool, Int, Float, Str, Bin, Array, Map }

    /// <summary>A msgpack value. Maps keep their key order (it is part of the canonical bytes).</summary>
    public sealed class MsgValue
    {
        public readonly MsgKind Kind;
        private readonly bool m_bool;
        private readonly long m_int;
        private readonly double m_float;
        private readonly string m_str;
        private readonly byte[] m_bin;
        private readonly List<MsgValue> m_items;
        private readonly List<KeyValuePair<string, MsgValue>> m_entries;

        public static readonly MsgValue Nil = new MsgValue(MsgKind.Nil, false, 0, 0, null, null, null, null);

        private MsgValue(MsgKind kind, bool b, long i, double f, string s, byte[] bin, List<MsgValue> items, List<KeyValuePair<string, MsgValue>> entries)
        {
            Kind = kind;
            m_bool = b;
            m_int = i;
            m_float = f;
            m_str = s;
            m_bin = bin;
            m_items = items;
            m_entries = entries;
        }

        public static MsgValue Of(bool value) { return new MsgValue(MsgKind.Bool, value, 0, 0, null, null, null, null); }
        public static MsgValue Of(long value) { return new MsgValue(MsgKind.Int, false, value, 0, null, null, null, null); }
        public static MsgValue Of(double value) { return new MsgValue(MsgKind.Float, false, 0, value, null, null, null, null); }

        public static MsgValue Of(string value)
        {
            if (value == null) throw new ArgumentNullException("value");
            return new MsgValue(MsgKind.Str, false, 0, 0, value, null, null, null);
        }

        public static MsgValue Of(byte[] value)
        {
            if (value == null) throw new ArgumentNullException("value");
            return new MsgValue(MsgKind.Bin, false, 0, 0, null, value, null, null);
        }

        public static MsgValue NewArray() { return new MsgValue(MsgKind.Array, false, 0, 0, null, null, new List<MsgValue>(), null); }
        public static MsgValue NewMap() { return new MsgValue(MsgKind.Map, false, 0, 0, null, null, null, new List<KeyValuePair<string, MsgValue>>()); }

        /// <summary>Appends an entry to a map (returns the map, for chaining).</summary>
        public MsgValue Set(string key, MsgValue value)
        {
            if (Kind != MsgKind.Map) throw new InvalidOperationException("not a map");
            m_entries.Add(new KeyValuePair<string, MsgValue>(key, value));
            return this;
        }

        public MsgValue Set(string key, string value) { return Set(key, Of(value)); }
        public MsgValue Set(string key, long value) { return Set(key, Of(value)); }
        public MsgValue Set(string key, double value) { return Set(key, Of(value)); }
        public MsgValue Set(string key, bool value) { return Set(key, Of(value)); }
        public MsgValue Set(string key, byte[] value) { return Set(key, Of(value)); }

        /// <summary>Appends an element to an array (returns the array).</summary>
        public MsgValue Add(MsgValue value)
        {
            if (Kind != MsgKind.Array) throw new InvalidOperationException("not an array");
            m_items.Add(value);
            return this;
        }

        /// <summary>The value of a map key, or null when absent.</summary>
        public MsgValue Get(string key)
        {
            if (Kind != MsgKind.Map) return null;
            for (int i = 0; i < m_entries.Count; i++)
            {
                if (m_entries[i].Key == key) return m_entries[i].Value;
            }
            return null;
        }

        public bool AsBool { get { Expect(MsgKind.Bool); return m_bool; } }
        public long AsInt { get { Expect(MsgKind.Int); return m_int; } }
        public string AsString { get { Expect(MsgKind.Str); return m_str; } }
        public byte[] AsBytes { get { Expect(MsgKind.Bin); return m_bin; } }
        public IList<MsgValue> Items { get { Expect(MsgKind.Array); return m_items; } }
        public IList<KeyValuePair<string, MsgValue>> Entries { get { Expect(MsgKind.Map); return m_entries; } }

        /// <summary>Any number as a double (an integer-valued float arrives as an Int).</summary>
        public double AsNumber
        {
            get
            {
                if (Kind == MsgKind.Int) return m_int;
                Expect(MsgKind.Float);
                return m_float;
            }
        }

        public bool IsNumber { get { return Kind == MsgKind.Int || Kind == MsgKind.Float; } }

        private void Expect(MsgKind kind)
        {
            if (Kind != kind) throw new MsgPackException("expected " + kind + ", found " + Kind);
        }
    }

    public sealed class MsgPackException : Exception
    {
        public MsgPackException(string message) : base(message) { }
    }

    /// <summary>Canonical encoder (PROTOCOL.md §2).</summary>
    public sealed class MsgPackWriter
    {
        private byte[] m_buffer = new byte[256];
        private int m_length;

        public static byte[] Encode(MsgValue value)
        {
            MsgPackWriter w = new MsgPackWriter();
            w.Write(value);
            return w.ToArray();
        }

        public byte[] ToArray()
        {
            byte[] result = new byte[m_length];
            Buffer.BlockCopy(m_buffer, 0, result, 0, m_length);
            return result;
        }

        public void Write(MsgValue value)
        {
            switch (value.Kind)
            {
                case MsgKind.Nil:
                    Byte(0xc0);
                    break;
                case MsgKind.Bool:
                    Byte(value.AsBool ? (byte)0xc3 : (byte)0xc2);
                    break;
                case MsgKind.Int:
                    WriteInteger(value.AsInt);
                    break;
                case MsgKind.Float:
                    WriteNumber(value.AsNumber);
                    break;
                case MsgKind.Str:
                    WriteString(value.AsString);
                    break;
                case MsgKind.Bin:
                    WriteBin(value.AsBytes);
                    break;
                case MsgKind.Array:
                    IList<MsgValue> items = value.Items;
                    Header(items.Count, 0x90, 15, 0xdc, 0xdd);
                    for (int i = 0; i < items.Count; i++) Write(items[i]);
                    break;
                case MsgKind.Map:
                    IList<KeyValuePair<string, MsgValue>> entries = value.Entries;
                    Header(entries.Count, 0x80, 15, 0xde, 0xdf);
                    for (int i = 0; i < entries.Count; i++)
                    {
                        WriteString(entries[i].Key);
                        Write(entries[i].Value);
                    }
                    break;
            }
        }

        /// <summary>An integer: the smallest integer format inside [-2^31, 2^32-1], float64 outside.</summary>
        private void WriteInteger(long v)
        {
            if (v < -2147483648L || v > 4294967295L)
            {
                WriteFloat64(v);
                return;
            }
            if (v >= 0)
            {
                if (v <= 0x7f) Byte((byte)v);
                else if (v <= 0xff) { Byte(0xcc); Byte((byte)v); }
                else if (v <= 0xffff) { Byte(0xcd); BigEndian((ulong)v, 2); }
                else { Byte(0xce); BigEndian((ulong)v, 4); }
            }
            else
            {
                if (v >= -32) Byte((byte)(sbyte)v);
                else if (v >= -128) { Byte(0xd0); Byte((byte)(sbyte)v); }
                else if (v >= -32768) { Byte(0xd1); BigEndian((ulong)(ushort)(short)v, 2); }
                else { Byte(0xd2); BigEndian((ulong)(uint)(int)v, 4); }
            }
        }

        /// <summary>A double: integer-valued numbers in range are integers (so 2.0 and 2 encode alike), the rest float64.</summary>
        private void WriteNumber(double d)
        {
            if (!double.IsNaN(d) && !double.IsInfinity(d) && d == Math.Floor(d) && d >= -2147483648.0 && d <= 4294967295.0)
            {
                WriteInteger((long)d);
                return;
            }
            WriteFloat64(d);
        }

        private void WriteFloat64(double d)
        {
            Byte(0xcb);
            BigEndian((ulong)BitConverter.DoubleToInt64Bits(d), 8);
        }

        private void WriteString(string s)
        {
            byte[] bytes = Encoding.UTF8.GetBytes(s);
            int n = bytes.Length;
            if (n <= 31) Byte((byte)(0xa0 | n));
            else if (n <= 0xff) { Byte(0xd9); Byte((byte)n); }
            else if (n <= 0xffff) { Byte(0xda); BigEndian((ulong)n, 2); }
            else { Byte(0xdb); BigEndian((ulong)n, 4); }
            Bytes(bytes);
        }

        private void WriteBin(byte[] b)
        {
            int n = b.Length;
            if (n <= 0xff) { Byte(0xc4); Byte((byte)n); }
            else if (n <= 0xffff) { Byte(0xc5); BigEndian((ulong)n, 2); }
            else { Byte(0xc6); BigEndian((ulong)n, 4); }
            Bytes(b);
        }

        private void Header(int count, int fixBase, int fixMax, byte code16, byte code32)
        {
            if (count <= fixMax) Byte((byte)(fixBase | count));
            else if (count <= 0xffff) { Byte(code16); BigEndian((ulong)count, 2); }
            else { Byte(code32); BigEndian((ulong)count, 4); }
        }

        private void BigEndian(ulong v, int size)
        {
            Ensure(size);
            for (int i = size - 1; i >= 0; i--)
            {
                m_buffer[m_length++] = (byte)(v >> (8 * i));
            }
        }

        private void Byte(byte b)
        {
            Ensure(1);
            m_buffer[m_length++] = b;
        }

        private void Bytes(byte[] b)
        {
            Ensure(b.Length);
            Buffer.BlockCopy(b, 0, m_buffer, m_length, b.Length);
            m_length += b.Length;
        }

        private void Ensure(int extra)
        {
            if (m_length + extra <= m_buffer.Length) return;
            int size = m_buffer.Length * 2;
            while (size < m_length + extra) size *= 2;
            byte[] next = new byte[size];
            Buffer.BlockCopy(m_buffer, 0, next, 0, m_length);
            m_buffer = next;
        }
    }

    /// <summary>Decoder: accepts any valid msgpack (except extension types), rejects truncated or trailing bytes.</summary>
    public sealed class MsgPackReader
    {
        private const int MaxDepth = 64;
        private readonly byte[] m_data;
        private int m_pos;

        private MsgPackReader(byte[] data)
        {
            m_data = data;
        }

        public static MsgValue Decode(byte[] data)
        {
            MsgPackReader r = new MsgPackReader(data);
            MsgValue value = r.Read(0);
            if (r.m_pos != data.Length) throw new MsgPackException((data.Length - r.m_pos) + " bytes after the message");
            return value;
        }

        private MsgValue Read(int depth)
        {
            if (depth > MaxDepth) throw new MsgPackException("nested too deeply");
            byte b = Next();
            if (b <= 0x7f) return MsgValue.Of((long)b);
            if (b >= 0xe0) return MsgValue.Of((long)(sbyte)b);
            if ((b & 0xf0) == 0x80) return ReadMap(b & 0x0f, depth);
            if ((b & 0xf0) == 0x90) return ReadArray(b & 0x0f, depth);
            if ((b & 0xe0) == 0xa0) return MsgValue.Of(ReadString(b & 0x1f));
            switch (b)
            {
                case 0xc0: return MsgValue.Nil;
                case 0xc2: return MsgValue.Of(false);
                case 0xc3: return MsgValue.Of(true);
                case 0xc4: return MsgValue.Of(Take((int)UInt(1)));
                case 0xc5: return MsgValue.Of(Take((int)UInt(2)));
                case 0xc6: return MsgValue.Of(Take(Length(UInt(4))));
                case 0xca: return MsgValue.Of((double)BitConverter.ToSingle(Reversed(Take(4)), 0));
                case 0xcb: return MsgValue.Of(BitConverter.Int64BitsToDouble((long)UInt(8)));
                case 0xcc: return MsgValue.Of((long)UInt(1));
                case 0xcd: return MsgValue.Of((long)UInt(2));
                case 0xce: return MsgValue.Of((long)UInt(4));
                case 0xcf:
                    ulong u = UInt(8);
                    return u <= long.MaxValue ? MsgValue.Of((long)u) : MsgValue.Of((double)u);
                case 0xd0: return MsgValue.Of((long)(sbyte)UInt(1));
                case 0xd1: return MsgValue.Of((long)(short)UInt(2));
                case 0xd2: return MsgValue.Of((long)(int)UInt(4));
                case 0xd3: return MsgValue.Of((long)UInt(8));
                case 0xd9: return MsgValue.Of(ReadString((int)UInt(1)));
                case 0xda: return MsgValue.Of(ReadString((int)UInt(2)));
                case 0xdb: return MsgValue.Of(ReadString(Length(UInt(4))));
                case 0xdc: return ReadArray((int)UInt(2), depth);
                case 0xdd: return ReadArray(Length(UInt(4)), depth);
                case 0xde: return ReadMap((int)UInt(2), depth);
                case 0xdf: return ReadMap(Length(UInt(4)), depth);
                default:
                    throw new MsgPackException(string.Format("unsupported msgpack byte 0x{0:x2}", b));
            }
        }

        private MsgValue ReadArray(int count, int depth)
        {
            Need(count); // every element takes at least one byte
            MsgValue a = MsgValue.NewArray();
            for (int i = 0; i < count; i++) a.Add(Read(depth + 1));
            return a;
        }

        private MsgValue ReadMap(int count, int depth)
        {
            Need(count * 2);
            MsgValue m = MsgValue.NewMap();
            for (int i = 0; i < count; i++)
            {
                MsgValue key = Read(depth + 1);
                if (key.Kind != MsgKind.Str) throw new MsgPackException("map key is not a string");
                m.Set(key.AsString, Read(depth + 1));
            }
            return m;
        }

        private string ReadString(int length)
        {
            // Invalid UTF-8 becomes U+FFFD, as in the TypeScript decoder (both sides accept the same input).
            return Encoding.UTF8.GetString(Take(length));
        }

        private static int Length(ulong n)
        {
            if (n > int.MaxValue) throw new MsgPackException("length too large");
            return (int)n;
        }

        private static byte[] Reversed(byte[] bigEndian)
        {
            if (BitConverter.IsLittleEndian) Array.Reverse(bigEndian);
            return bigEndian;
        }

        private ulong UInt(int size)
        {
            Need(size);
            ulong v = 0;
            for (int i = 0; i < size; i++) v = (v << 8) | m_data[m_pos++];
            return v;
        }

        private byte Next()
        {
            Need(1);
            return m_data[m_pos++];
        }

        private byte[] Take(int n)
        {
            Need(n);
            byte[] b = new byte[n];
            Buffer.BlockCopy(m_data, m_pos, b, 0, n);
            m_pos += n;
            return b;
        }

        private void Need(int n)
        {
            if (n < 0 || m_pos + n > m_data.Length) throw new MsgPackException("unexpected end of msgpack data");
        }
    }
}
