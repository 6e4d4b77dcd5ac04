// TEST DOUBLE — not Unity. Cameras that really draw: Camera.Render rasterises every visible
// SpriteRenderer (its GameObject's layer in the culling mask, z between the clip planes, colour not
// clear) as a filled rotated rectangle of its sprite's size, pixel centres inside, no anti-aliasing,
// into the target RenderTexture (origin bottom-left, as Unity's). Texture2D.ReadPixels copies from
// RenderTexture.active; EncodeToPNG writes a real RGBA PNG (top row first) with a tEXt chunk that
// records what the last render saw (camera centre and size, bodies' physics steps), for the tests.
// Signatures: Unity 2019.4.

using System;
using System.Globalization;
using System.IO;
using System.IO.Compression;
using System.Text;

namespace UnityEngine
{
    public enum CameraClearFlags { Skybox = 1, Color = 2, SolidColor = 2, Depth = 3, Nothing = 4 }

    public sealed class Camera : Behaviour
    {
        private float m_aspect = -1f;

        public bool orthographic { get; set; }
        public float orthographicSize { get; set; }
        public float aspect
        {
            get { return m_aspect > 0f ? m_aspect : targetTexture != null ? (float)targetTexture.width / targetTexture.height : 1f; }
            set { m_aspect = value; }
        }
        public CameraClearFlags clearFlags { get; set; }
        public Color backgroundColor { get; set; }
        public int cullingMask { get; set; }
        public float nearClipPlane { get; set; }
        public float farClipPlane { get; set; }
        public bool allowHDR { get; set; }
        public bool allowMSAA { get; set; }
        public RenderTexture targetTexture { get; set; }
        public static Camera main { get { return null; } }

        public Camera()
        {
            orthographicSize = 5f;
            nearClipPlane = 0.3f;
            farClipPlane = 1000f;
            cullingMask = -1;
        }

        public void Render()
        {
            RenderTexture target = targetTexture;
            if (target == null) return;
            if (Rasteriser.NoGraphics)
            {
                target.Info = "no graphics device";
                return;
            }
            Rasteriser.Draw(this, target);
        }
    }

    public enum RenderTextureFormat { ARGB32 = 0, Depth = 1, ARGBHalf = 2, Default = 7 }

    public enum TextureFormat { Alpha8 = 1, RGB24 = 3, RGBA32 = 4, ARGB32 = 5 }

    public class Texture : Object
    {
        public virtual int width { get { return 0; } set { } }
        public virtual int height { get { return 0; } set { } }
    }

    public sealed class RenderTexture : Texture
    {
        private readonly int m_width;
        private readonly int m_height;
        internal readonly Color32[] Pixels;
        internal string Info = "";

        public RenderTexture(int width, int height, int depth, RenderTextureFormat format)
        {
            m_width = width;
            m_height = height;
            Pixels = new Color32[width * height];
        }

        public override int width { get { return m_width; } set { } }
        public override int height { get { return m_height; } set { } }
        public static RenderTexture active { get; set; }
        public void Release() { }
    }

    public sealed class Texture2D : Texture
    {
        private readonly int m_width;
        private readonly int m_height;
        internal readonly Color32[] Pixels;
        internal string Info = "";

        public Texture2D(int width, int height, TextureFormat textureFormat, bool mipChain)
        {
            m_width = width;
            m_height = height;
            Pixels = new Color32[width * height];
        }

        public override int width { get { return m_width; } set { } }
        public override int height { get { return m_height; } set { } }

        public void SetPixel(int x, int y, Color color)
        {
            if (x >= 0 && y >= 0 && x < m_width && y < m_height) Pixels[y * m_width + x] = color;
        }

        public Color32[] GetPixels32() { return GetPixels32(0); }

        public Color32[] GetPixels32(int miplevel) { return (Color32[])Pixels.Clone(); }

        public void SetPixels32(Color32[] colors)
        {
            if (colors.Length != Pixels.Length) throw new ArgumentException("SetPixels32 called with invalid number of pixels in the array");
            Array.Copy(colors, Pixels, Pixels.Length);
        }

        /// <summary>Copies `source` of RenderTexture.active to (destX, destY) (both bottom-left origin).</summary>
        public void ReadPixels(Rect source, int destX, int destY)
        {
            RenderTexture from = RenderTexture.active;
            if (from == null) throw new InvalidOperationException("ReadPixels needs RenderTexture.active (the double has no screen)");
            int sx = (int)source.x;
            int sy = (int)source.y;
            for (int y = 0; y < (int)source.height; y++)
            {
                for (int x = 0; x < (int)source.width; x++)
                {
                    int tx = destX + x;
                    int ty = destY + y;
                    if (tx < 0 || ty < 0 || tx >= m_width || ty >= m_height) continue;
                    Pixels[ty * m_width + tx] = from.Pixels[(sy + y) * from.width + sx + x];
                }
            }
            Info = from.Info;
        }

        public void Apply() { }
    }

    public static class ImageConversion
    {
        public static byte[] EncodeToPNG(this Texture2D tex) { return Png.Encode(tex.width, tex.height, tex.Pixels, tex.Info); }
    }

    public sealed class Sprite : Object
    {
        /// <summary>Size in world units (pixels / pixelsPerUnit).</summary>
        internal float Width;
        internal float Height;
        /// <summary>The colour the double fills the sprite with (OCR sprites are solid black).</summary>
        internal Color32 Fill;

        internal static Sprite Make(string name, float width, float height, Color32 fill)
        {
            return new Sprite { name = name, Width = width, Height = height, Fill = fill };
        }
    }

    public class Renderer : Component
    {
        public bool enabled { get; set; }
        public virtual Bounds bounds { get { return new Bounds(transform.position, Vector3.zero); } }

        public Renderer()
        {
            enabled = true;
        }
    }

    public sealed class SpriteRenderer : Renderer
    {
        public SpriteRenderer()
        {
            color = Color.white;
        }

        public Sprite sprite { get; set; }
        public Color color { get; set; }
    }

    public sealed class AudioClip : Object { }

    internal static class Rasteriser
    {
        /// <summary>-nographics: cameras render nothing (as Unity without a graphics device).</summary>
        internal static bool NoGraphics { get; set; }

        /// <summary>A device that clears the target but draws nothing (a windowless editor that renders no sprites).</summary>
        internal static bool Blank { get; set; }

        internal static void Draw(Camera camera, RenderTexture target)
        {
            int w = target.width;
            int h = target.height;
            Color32 background = camera.backgroundColor;
            if (camera.clearFlags == CameraClearFlags.SolidColor)
            {
                for (int i = 0; i < target.Pixels.Length; i++) target.Pixels[i] = background;
            }
            if (Blank)
            {
                target.Info = "blank device";
                return;
            }
            Vector3 eye = camera.transform.position;
            double halfH = camera.orthographicSize;
            double halfW = halfH * camera.aspect;
            long maxSteps = -1;
            int drawn = 0;
            foreach (Object o in PlayerLoop.LiveObjects())
            {
                SpriteRenderer r = o as SpriteRenderer;
                if (r == null || !r.enabled || r.sprite == null || r.color.a <= 0f) continue;
                GameObject g = r.gameObject;
                if ((camera.cullingMask & (1 << g.layer)) == 0) continue;
                Vector3 p = g.transform.position;
                double depth = p.z - eye.z;
                if (depth < camera.nearClipPlane || depth > camera.farClipPlane) continue;
                Color sc = r.color;
                Color32 fill = r.sprite.Fill;
                Color32 colour = new Color32((byte)(fill.r * sc.r), (byte)(fill.g * sc.g), (byte)(fill.b * sc.b), 255);
                Vector3 scale = g.transform.localScale;
                double hw = r.sprite.Width * Math.Abs(scale.x) / 2;
                double hh = r.sprite.Height * Math.Abs(scale.y) / 2;
                double a = g.transform.AngleDegrees * Math.PI / 180.0;
                double cos = Math.Cos(a);
                double sin = Math.Sin(a);
                double ex = Math.Abs(cos) * hw + Math.Abs(sin) * hh;
                double ey = Math.Abs(sin) * hw + Math.Abs(cos) * hh;
                // Pixel columns/rows whose centres can fall inside the sprite's AABB.
                int x0 = Math.Max(0, (int)Math.Floor(ToPixel(p.x - ex, eye.x, halfW, w)));
                int x1 = Math.Min(w - 1, (int)Math.Ceiling(ToPixel(p.x + ex, eye.x, halfW, w)));
                int y0 = Math.Max(0, (int)Math.Floor(ToPixel(p.y - ey, eye.y, halfH, h)));
                int y1 = Math.Min(h - 1, (int)Math.Ceiling(ToPixel(p.y + ey, eye.y, halfH, h)));
                bool covered = false;
                for (int py = y0; py <= y1; py++)
                {
                    double wy = eye.y + ((py + 0.5) / h * 2 - 1) * halfH - p.y;
                    for (int px = x0; px <= x1; px++)
                    {
                        double wx = eye.x + ((px + 0.5) / w * 2 - 1) * halfW - p.x;
                        double lx = wx * cos + wy * sin;
                        double ly = -wx * sin + wy * cos;
                        if (Math.Abs(lx) < hw && Math.Abs(ly) < hh)
                        {
                            target.Pixels[py * w + px] = colour;
                            covered = true;
                        }
                    }
                }
                if (!covered) continue;
                drawn++;
                Rigidbody2D body = g.GetComponent<Rigidbody2D>();
                if (body != null) maxSteps = Math.Max(maxSteps, body.StepsSimulated);
            }
            target.Info = string.Format(CultureInfo.InvariantCulture, "camera={0:R},{1:R},{2:R} size={3:R} aspect={4:R} sprites={5} steps={6} frame={7}",
                eye.x, eye.y, eye.z, camera.orthographicSize, camera.aspect, drawn, maxSteps, PlayerLoop.FrameCount);
        }

        private static double ToPixel(double world, double eye, double half, int pixels)
        {
            return ((world - eye) / half + 1) / 2 * pixels - 0.5;
        }
    }

    internal static class Png
    {
        private static readonly uint[] s_crc = MakeCrcTable();

        private static uint[] MakeCrcTable()
        {
            uint[] table = new uint[256];
            for (uint n = 0; n < 256; n++)
            {
                uint c = n;
                for (int k = 0; k < 8; k++) c = (c & 1) != 0 ? 0xedb88320u ^ (c >> 1) : c >> 1;
                table[n] = c;
            }
            return table;
        }

        internal static byte[] Encode(int width, int height, Color32[] pixels, string comment)
        {
            byte[] raw = new byte[(width * 4 + 1) * height];
            int o = 0;
            for (int row = height - 1; row >= 0; row--)
            {
                raw[o++] = 0; // filter: none
                for (int x = 0; x < width; x++)
                {
                    Color32 c = pixels[row * width + x];
                    raw[o++] = c.r;
                    raw[o++] = c.g;
                    raw[o++] = c.b;
                    raw[o++] = c.a;
                }
            }
            using (MemoryStream png = new MemoryStream())
            {
                png.Write(new byte[] { 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a }, 0, 8);
                byte[] header = new byte[13];
                BigEndian(header, 0, (uint)width);
                BigEndian(header, 4, (uint)height);
                header[8] = 8; // bit depth
                header[9] = 6; // RGBA
                Chunk(png, "IHDR", header);
                if (!string.IsNullOrEmpty(comment)) Chunk(png, "tEXt", Encoding.ASCII.GetBytes("Comment\0" + comment));
                Chunk(png, "IDAT", Zlib(raw));
                Chunk(png, "IEND", new byte[0]);
                return png.ToArray();
            }
        }

        private static byte[] Zlib(byte[] data)
        {
            using (MemoryStream z = new MemoryStream())
            {
                z.WriteByte(0x78);
                z.WriteByte(0x9c);
                using (DeflateStream deflate = new DeflateStream(z, CompressionLevel.Fastest, true)) deflate.Write(data, 0, data.Length);
                // Adler-32 with the modulo taken every 5552 bytes (the most that cannot overflow), as zlib does.
                uint a = 1, b = 0;
                int left = data.Length;
                int at = 0;
                while (left > 0)
                {
                    int run = Math.Min(left, 5552);
                    left -= run;
                    while (run-- > 0)
                    {
                        a += data[at++];
                        b += a;
                    }
                    a %= 65521;
                    b %= 65521;
                }
                byte[] adler = new byte[4];
                BigEndian(adler, 0, (b << 16) | a);
                z.Write(adler, 0, 4);
                return z.ToArray();
            }
        }

        private static void Chunk(Stream png, string type, byte[] data)
        {
            byte[] length = new byte[4];
            BigEndian(length, 0, (uint)data.Length);
            png.Write(length, 0, 4);
            byte[] body = new byte[4 + data.Length];
            Encoding.ASCII.GetBytes(type, 0, 4, body, 0);
            Array.Copy(data, 0, body, 4, data.Length);
            png.Write(body, 0, body.Length);
            uint c = 0xffffffffu;
            foreach (byte x in body) c = s_crc[(c ^ x) & 0xff] ^ (c >> 8);
            byte[] crc = new byte[4];
            BigEndian(crc, 0, c ^ 0xffffffffu);
            png.Write(crc, 0, 4);
        }

        private static void BigEndian(byte[] buffer, int offset, uint value)
        {
            buffer[offset] = (byte)(value >> 24);
            buffer[offset + 1] = (byte)(value >> 16);
            buffer[offset + 2] = (byte)(value >> 8);
            buffer[offset + 3] = (byte)value;
        }
    }
}
