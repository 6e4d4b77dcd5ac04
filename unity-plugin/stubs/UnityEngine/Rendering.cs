// Compile-only stand-ins (Unity 2019.4 signatures): cameras, textures, sprites, PNG encoding.

namespace UnityEngine
{
    public enum CameraClearFlags { Skybox = 1, Color = 2, SolidColor = 2, Depth = 3, Nothing = 4 }

    public sealed class Camera : Behaviour
    {
        public bool orthographic { get; set; }
        public float orthographicSize { get; set; }
        public float aspect { get; set; }
        public CameraClearFlags clearFlags { get; set; }
        public Color backgroundColor { get; set; }
        public int cullingMask { get; set; }
        public float nearClipPlane { get; set; }
        public float farClipPlane { get; set; }
        public bool allowHDR { get; set; }
        public bool allowMSAA { get; set; }
        public RenderTexture targetTexture { get; set; }
        public void Render() { }
        public static Camera main { get { return null; } }
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
        public RenderTexture(int width, int height, int depth, RenderTextureFormat format) { }
        public static RenderTexture active { get; set; }
        public void Release() { }
    }

    public sealed class Texture2D : Texture
    {
        public Texture2D(int width, int height, TextureFormat textureFormat, bool mipChain) { }
        public void SetPixel(int x, int y, Color color) { }
        public void SetPixels32(Color32[] colors) { }
        public void ReadPixels(Rect source, int destX, int destY) { }
        public void Apply() { }
    }

    public static class ImageConversion
    {
        public static byte[] EncodeToPNG(this Texture2D tex) { return null; }
    }

    public sealed class Sprite : Object { }

    public sealed class SpriteRenderer : Renderer
    {
        public Sprite sprite { get; set; }
        public Color color { get; set; }
    }

    public class Renderer : Component
    {
        public Bounds bounds { get { return new Bounds(); } }
    }

    public sealed class AudioClip : Object { }
}
