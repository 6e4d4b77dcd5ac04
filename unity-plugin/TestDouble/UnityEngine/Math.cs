// TEST DOUBLE — not Unity. Vectors, rectangles, bounds and colours with Unity 2019.4's signatures and
// float arithmetic (see Core.cs).

using System;

namespace UnityEngine
{
    public struct Vector2
    {
        public float x;
        public float y;
        public Vector2(float x, float y) { this.x = x; this.y = y; }
        public float magnitude { get { return (float)Math.Sqrt((double)x * x + (double)y * y); } }
        public static Vector2 zero { get { return new Vector2(0f, 0f); } }
        public static Vector2 positiveInfinity { get { return new Vector2(float.PositiveInfinity, float.PositiveInfinity); } }
        public static Vector2 negativeInfinity { get { return new Vector2(float.NegativeInfinity, float.NegativeInfinity); } }
        public static float Distance(Vector2 a, Vector2 b) { return (a - b).magnitude; }
        public static Vector2 operator -(Vector2 a, Vector2 b) { return new Vector2(a.x - b.x, a.y - b.y); }
        public static Vector2 operator +(Vector2 a, Vector2 b) { return new Vector2(a.x + b.x, a.y + b.y); }
        public static Vector2 operator *(Vector2 a, float d) { return new Vector2(a.x * d, a.y * d); }
        public static Vector2 operator /(Vector2 a, float d) { return new Vector2(a.x / d, a.y / d); }
        public static implicit operator Vector2(Vector3 v) { return new Vector2(v.x, v.y); }
        public static implicit operator Vector3(Vector2 v) { return new Vector3(v.x, v.y, 0f); }
    }

    public struct Vector3
    {
        public float x;
        public float y;
        public float z;
        public Vector3(float x, float y, float z) { this.x = x; this.y = y; this.z = z; }
        public Vector3(float x, float y) { this.x = x; this.y = y; z = 0f; }
        public float magnitude { get { return (float)Math.Sqrt((double)x * x + (double)y * y + (double)z * z); } }
        public static Vector3 zero { get { return new Vector3(0f, 0f, 0f); } }
        public static Vector3 down { get { return new Vector3(0f, -1f, 0f); } }
        public static Vector3 operator -(Vector3 a, Vector3 b) { return new Vector3(a.x - b.x, a.y - b.y, a.z - b.z); }
        public static Vector3 operator +(Vector3 a, Vector3 b) { return new Vector3(a.x + b.x, a.y + b.y, a.z + b.z); }
        public static Vector3 operator *(Vector3 a, float d) { return new Vector3(a.x * d, a.y * d, a.z * d); }
        public static Vector3 operator /(Vector3 a, float d) { return new Vector3(a.x / d, a.y / d, a.z / d); }
    }

    public struct Vector2Int
    {
        public int x { get; set; }
        public int y { get; set; }
        public Vector2Int(int x, int y) { this.x = x; this.y = y; }
    }

    /// <summary>Rotations about z only (all the 2-D game uses).</summary>
    public struct Quaternion
    {
        public float x;
        public float y;
        public float z;
        public float w;

        public Vector3 eulerAngles
        {
            get
            {
                double degrees = 2.0 * Math.Atan2(z, w) * 180.0 / Math.PI;
                if (degrees < 0) degrees += 360.0;
                return new Vector3(0f, 0f, (float)degrees);
            }
            set { this = Euler(0f, 0f, value.z); }
        }

        public static Quaternion identity { get { return new Quaternion { w = 1f }; } }

        public static Quaternion Euler(float x, float y, float z)
        {
            double half = z * Math.PI / 360.0;
            return new Quaternion { z = (float)Math.Sin(half), w = (float)Math.Cos(half) };
        }
    }

    public struct Rect
    {
        private float m_x;
        private float m_y;
        private float m_width;
        private float m_height;

        public Rect(float x, float y, float width, float height)
        {
            m_x = x;
            m_y = y;
            m_width = width;
            m_height = height;
        }

        public float x { get { return m_x; } set { m_x = value; } }
        public float y { get { return m_y; } set { m_y = value; } }
        public float width { get { return m_width; } set { m_width = value; } }
        public float height { get { return m_height; } set { m_height = value; } }
        public Vector2 center { get { return new Vector2(m_x + m_width / 2f, m_y + m_height / 2f); } set { m_x = value.x - m_width / 2f; m_y = value.y - m_height / 2f; } }
        public Vector2 size { get { return new Vector2(m_width, m_height); } set { m_width = value.x; m_height = value.y; } }
        public Vector2 min { get { return new Vector2(m_x, m_y); } set { m_width += m_x - value.x; m_height += m_y - value.y; m_x = value.x; m_y = value.y; } }
        public Vector2 max { get { return new Vector2(m_x + m_width, m_y + m_height); } set { m_width = value.x - m_x; m_height = value.y - m_y; } }
        public static Rect zero { get { return new Rect(0f, 0f, 0f, 0f); } }
        public static Rect MinMaxRect(float xmin, float ymin, float xmax, float ymax) { return new Rect(xmin, ymin, xmax - xmin, ymax - ymin); }
    }

    public struct Bounds
    {
        public Bounds(Vector3 center, Vector3 size)
        {
            this.center = center;
            this.size = size;
        }

        public Vector3 center { get; set; }
        public Vector3 size { get; set; }
        public Vector3 extents { get { return size * 0.5f; } set { size = value * 2f; } }
        public Vector3 min { get { return center - extents; } set { } }
        public Vector3 max { get { return center + extents; } set { } }
    }

    public struct Color
    {
        public float r;
        public float g;
        public float b;
        public float a;
        public Color(float r, float g, float b, float a) { this.r = r; this.g = g; this.b = b; this.a = a; }
        public static Color white { get { return new Color(1f, 1f, 1f, 1f); } }
        public static Color black { get { return new Color(0f, 0f, 0f, 1f); } }
        public static Color clear { get { return new Color(0f, 0f, 0f, 0f); } }
        public static Color magenta { get { return new Color(1f, 0f, 1f, 1f); } }
    }

    public struct Color32
    {
        public byte r;
        public byte g;
        public byte b;
        public byte a;
        public Color32(byte r, byte g, byte b, byte a) { this.r = r; this.g = g; this.b = b; this.a = a; }

        public static implicit operator Color32(Color c)
        {
            return new Color32(Byte(c.r), Byte(c.g), Byte(c.b), Byte(c.a));
        }

        public static implicit operator Color(Color32 c) { return new Color(c.r / 255f, c.g / 255f, c.b / 255f, c.a / 255f); }

        private static byte Byte(float v) { return (byte)Math.Round(Math.Max(0f, Math.Min(1f, v)) * 255f); }
    }
}
