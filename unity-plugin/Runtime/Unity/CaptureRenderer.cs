// sbeval bridge, Unity side: the black-on-white capture as the evaluator's similarity scene makes it
// (Assets/ICE/Scripts/Evaluation/Similarity/BaseSimilarityEvaluator.cs and the render camera in
// Assets/ICE/Scenes/BatchSimilarityTest.unity), driven by LevelRun's image pass:
// - bound: union of Collider2D.bounds over every ABBlock (GetStructureBound); no block → a 20 × 20
//   box around the render camera's current position (outputErrorLevels). The camera starts where the
//   evaluator's does, (330.58395, 249.06973, −5.5168686), far from any level, and keeps the position
//   the previous level left it at — so, as in the evaluator, a level without blocks renders blank
//   unless an earlier level on the same editor framed a structure near it;
// - camera: orthographic, solid white background, culling mask 1024 (layer 10 "Blocks" only), near
//   0.3, far 1000, centred on the bound at the gameplay camera's z, sized so the larger side of the
//   bound fills the 824 × 824 render (AdjustCamera);
// - OCR sprites: every ABBlock whose type has an OCR sprite gets it for all materials, then
//   SetMaterial re-applies it (AdjustBlocks; OCRSettings.asset lists RectSmall and SquareTiny);
// - image: a 1024 × 1024 RGBA texture filled with the background colour, the 824² render copied in
//   at (100, 100), encoded as PNG (SaveTexture / CopyPixels).
// Rendering is explicit (Camera.Render at the end of the frame's scripts — LevelRun.AfterFrame, after
// the Update that may have killed or removed objects — of the frame whose physics step the evaluator's
// frame shows) instead of the evaluator's enabled camera plus end-of-frame waits, which never resume
// in batch mode. Without a graphics device (-nographics: SystemInfo.graphicsDeviceType Null) a render
// gives no pixels, so the renderer is unavailable and the engine does not announce capture. A device
// may also render nothing without a window (a batch-mode editor on macOS): a render of one colour
// while blocks are in view is refused (BlankReason) rather than scored — unless that colour is not the
// background and a single block was framed, whose sprite may fill the whole view.

using UnityEngine;
using UnityEngine.Rendering;
using ICE.Evaluation;
#if UNITY_EDITOR
using UnityEditor;
#endif

namespace Sbeval.Bridge.Unity
{
    public sealed class CaptureRenderer
    {
        /// <summary>BatchSimilarityTest.unity inspector values.</summary>
        public const int TargetSize = 1024;
        public const int Margin = 100;
        /// <summary>Render camera culling mask: layer 10 ("Blocks").</summary>
        public const int CullingMask = 1024;
        /// <summary>The render camera's position in BatchSimilarityTest.unity (m_LocalPosition).</summary>
        public static readonly Vector3 InitialPosition = new Vector3(330.58395f, 249.06973f, -5.5168686f);
        public const string OcrSettingsPath = "Assets/ICE/Settings/OCRSettings.asset";

        private readonly OCRSettings m_ocr;
        private readonly string m_unavailable;
        private Camera m_camera;
        private RenderTexture m_target;
        private Texture2D m_image;
        private int m_framedBlocks;

        private CaptureRenderer(OCRSettings ocr, string unavailable)
        {
            m_ocr = ocr;
            m_unavailable = unavailable;
        }

        /// <summary>The OCR settings come from the project's asset (editor only: the evaluator itself only runs in the editor).</summary>
        public static CaptureRenderer Create()
        {
            OCRSettings ocr = null;
#if UNITY_EDITOR
            ocr = AssetDatabase.LoadAssetAtPath<OCRSettings>(OcrSettingsPath);
#endif
            string unavailable = null;
            if (SystemInfo.graphicsDeviceType == GraphicsDeviceType.Null) unavailable = "no graphics device (the editor runs with -nographics)";
            else if (ocr == null) unavailable = "the evaluator's OCR settings (" + OcrSettingsPath + ") were not found";
            return new CaptureRenderer(ocr, unavailable);
        }

        public bool Available { get { return m_unavailable == null; } }

        /// <summary>Why the renderer cannot render (null when it can).</summary>
        public string Unavailable { get { return m_unavailable; } }

        /// <summary>GetStructureBound + AdjustCamera, at the end of the window.</summary>
        public void FrameStructure()
        {
            EnsureCamera();
            Rect bound = StructureBound(out m_framedBlocks);
            if (bound.size.x <= 0 || bound.size.y <= 0)
            {
                Vector3 at = m_camera.transform.position;
                bound = Rect.MinMaxRect(at.x - 10, at.y - 10, at.x + 10, at.y + 10);
            }
            ABGameplayCamera gameplay = Object.FindObjectOfType<ABGameplayCamera>();
            float z = gameplay != null ? gameplay.transform.position.z : m_camera.transform.position.z;
            m_camera.transform.position = new Vector3(bound.center.x, bound.center.y, z);
            float structureAspect = bound.width / bound.height;
            if (structureAspect > m_camera.aspect)
            {
                float width = m_camera.aspect * bound.height;
                m_camera.orthographicSize = bound.height * 0.5f * (bound.width / width);
            }
            else
            {
                m_camera.orthographicSize = bound.height * 0.5f;
            }
        }

        /// <summary>AdjustBlocks: the OCR sprite for every configured block type, all materials.</summary>
        public void UseOcrSprites()
        {
            if (m_ocr == null) return;
            foreach (ABBlock b in Object.FindObjectsOfType<ABBlock>())
            {
                string blockType = Utils.GetBlockType(b.gameObject);
                if (string.IsNullOrEmpty(blockType)) continue;
                Sprite sprite = m_ocr.GetOCRSprite(blockType);
                if (sprite == null) continue;
                for (int i = 0; i < b._woodSprites.Length; i++) b._woodSprites[i] = sprite;
                for (int i = 0; i < b._stoneSprites.Length; i++) b._stoneSprites[i] = sprite;
                for (int i = 0; i < b._iceSprites.Length; i++) b._iceSprites[i] = sprite;
                b.SetMaterial(b._material);
            }
        }

        /// <summary>Renders the camera now and returns the 1024² PNG with the white margin.</summary>
        public byte[] Render()
        {
            EnsureCamera();
            m_camera.targetTexture = m_target;
            m_camera.Render();
            RenderTexture previous = RenderTexture.active;
            RenderTexture.active = m_target;
            m_image.ReadPixels(new Rect(0, 0, m_target.width, m_target.height), Margin, Margin);
            m_image.Apply();
            RenderTexture.active = previous;
            m_camera.targetTexture = null;
            BlankReason = Blank();
            return m_image.EncodeToPNG();
        }

        /// <summary>Why the last render cannot be the level's image (one colour with blocks in view), or null.</summary>
        public string BlankReason { get; private set; }

        private string Blank()
        {
            if (m_framedBlocks == 0) return null; // nothing to draw: blank is the evaluator's image too
            Color32[] pixels = m_image.GetPixels32();
            int size = TargetSize - Margin * 2;
            Color32 first = pixels[Margin * TargetSize + Margin];
            for (int y = Margin; y < Margin + size; y++)
            {
                for (int x = Margin; x < Margin + size; x++)
                {
                    Color32 p = pixels[y * TargetSize + x];
                    if (p.r != first.r || p.g != first.g || p.b != first.b || p.a != first.a) return null;
                }
            }
            Color32 background = m_camera.backgroundColor;
            bool isBackground = first.r == background.r && first.g == background.g && first.b == background.b;
            if (!isBackground && m_framedBlocks == 1) return null;
            return "the capture is blank: every pixel of the " + size + " × " + size + " render is (" + first.r + ", " + first.g + ", " + first.b + ", " + first.a +
                ") although " + m_framedBlocks + " block(s) are in view — this editor's graphics device (SystemInfo.graphicsDeviceType " +
                SystemInfo.graphicsDeviceType + ") rendered nothing";
        }

        /// <summary>What to do about a blank capture.</summary>
        public const string BlankHint = "start the editor with another graphics API (-force-metal or -force-glcore; the project's metalEditorSupport picks the default) and check with sbeval unity doctor";

        private static Rect StructureBound(out int blocks)
        {
            Vector2 min = Vector2.positiveInfinity;
            Vector2 max = Vector2.negativeInfinity;
            bool any = false;
            blocks = 0;
            foreach (ABBlock b in Object.FindObjectsOfType<ABBlock>())
            {
                Collider2D col = b.GetComponent<Collider2D>();
                if (col == null) continue;
                any = true;
                blocks++;
                min.x = Mathf.Min(min.x, col.bounds.min.x);
                min.y = Mathf.Min(min.y, col.bounds.min.y);
                max.x = Mathf.Max(max.x, col.bounds.max.x);
                max.y = Mathf.Max(max.y, col.bounds.max.y);
            }
            return any ? Rect.MinMaxRect(min.x, min.y, max.x, max.y) : Rect.zero;
        }

        private void EnsureCamera()
        {
            if (m_camera != null) return;
            GameObject go = new GameObject("sbeval capture camera");
            Object.DontDestroyOnLoad(go);
            go.transform.position = InitialPosition;
            m_camera = go.AddComponent<Camera>();
            m_camera.enabled = false; // rendered explicitly
            m_camera.orthographic = true;
            m_camera.orthographicSize = 5f;
            m_camera.clearFlags = CameraClearFlags.SolidColor;
            m_camera.backgroundColor = Color.white;
            m_camera.cullingMask = CullingMask;
            m_camera.nearClipPlane = 0.3f;
            m_camera.farClipPlane = 1000f;
            m_camera.allowHDR = true;
            m_camera.allowMSAA = true;
            m_target = new RenderTexture(TargetSize - Margin * 2, TargetSize - Margin * 2, 16, RenderTextureFormat.ARGB32);
            m_camera.targetTexture = m_target;
            m_camera.aspect = (float)m_target.width / m_target.height;
            m_image = new Texture2D(TargetSize, TargetSize, TextureFormat.RGBA32, false);
            Color32[] white = new Color32[TargetSize * TargetSize];
            Color32 background = m_camera.backgroundColor;
            for (int i = 0; i < white.Length; i++) white[i] = background;
            m_image.SetPixels32(white);
            m_image.Apply();
        }
    }
}
