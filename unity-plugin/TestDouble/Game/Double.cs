// TEST DOUBLE — the fake game's machinery: its scenes and assets, the prefabs it "instantiates", and
// the scripts that move the bodies instead of physics.
//
// A script is a recorded frame stream for one level (file `<sha256 of the XML>.<pass>.sbds` in the
// folder named by SBEVAL_DOUBLE_SCRIPTS; `<pass>` is `stability-<n>` for the n-th load of the level
// in the stability scene and `similarity` for the image scene, falling back to `stability-1` and then
// to `<sha256>.sbds`). Little-endian:
//   "SBDS", int32 version 1, int32 bodies (the XML's objects, in XML order), int32 steps,
//   float32 [steps][bodies][6] (x, y, angle rad, vx, vy, ω rad/s), uint8 [steps][bodies] alive,
//   int32 events, each: int32 kind (0 contact, 1 out-of-world), int32 step, int32 a, int32 b (−1 ground), float32 speed.
// On its k-th physics step a created body takes row k (the last row after the end); a contact of
// step k begins between its two colliders; alive going to 0 calls Die — except for the bodies listed
// as leaving the world, which the game's own Update-phase rule kills when their row puts them outside.

using System;
using System.Collections.Generic;
using System.IO;
using System.Security.Cryptography;
using System.Text;
using ICE.Evaluation;
using UnityEditor;
using UnityEngine;

namespace ScienceBirds.TestDouble
{
    public static class Game
    {
        public const string StabilityScene = "Assets/ICE/Scenes/StabilityGameWorld.unity";
        public const string SimilarityScene = "Assets/ICE/Scenes/SimilarityGameWorld.unity";
        public const string OcrSettingsPath = "Assets/ICE/Settings/OCRSettings.asset";

        /// <summary>Registers the scenes and the OCR asset, and moves scripted bodies on every physics step.</summary>
        public static void Install()
        {
            PlayerLoop.RegisterScene(StabilityScene, () => BuildWorld(StabilityScene));
            PlayerLoop.RegisterScene(SimilarityScene, () => BuildWorld(SimilarityScene));
            OCRSettings ocr = new OCRSettings { name = "OCRSettings" };
            ocr.Sprites["RectSmall"] = Sprite.Make("RectSmall OCR", 0.72f, 0.24f, new Color32(0, 0, 0, 255));
            ocr.Sprites["SquareTiny"] = Sprite.Make("SquareTiny OCR", 0.24f, 0.23f, new Color32(0, 0, 0, 255));
            AssetDatabase.Assets[OcrSettingsPath] = ocr;
            Physics2D.Stepping += Worlds.Step;
            PlayerLoop.SceneLoadFrames = path => LoadFramesOf(LevelList.Instance.GetCurrentLevel());
        }

        /// <summary>`sbeval-double: load-frames=N` in the level's XML: loading the world scene takes N frames.</summary>
        private static int LoadFramesOf(ABLevel level)
        {
            const string marker = "sbeval-double: load-frames=";
            if (level == null || level.Source == null) return 0;
            int at = level.Source.IndexOf(marker, StringComparison.Ordinal);
            if (at < 0) return 0;
            int end = at + marker.Length;
            while (end < level.Source.Length && char.IsDigit(level.Source[end])) end++;
            return int.Parse(level.Source.Substring(at + marker.Length, end - at - marker.Length), System.Globalization.CultureInfo.InvariantCulture);
        }

        /// <summary>The evaluation world scene: the roots the game finds by name, the gameplay camera, the world.</summary>
        private static void BuildWorld(string path)
        {
            new GameObject("Blocks");
            new GameObject("Birds");
            new GameObject("Platforms");
            new GameObject("slingshot_base");
            GameObject camera = new GameObject("Camera");
            camera.transform.position = new Vector3(0f, 0f, -15f);
            camera.AddComponent<ABGameplayCamera>();
            GameObject world = new GameObject("GameWorld");
            ABGameWorld w = world.AddComponent<ABGameWorld>();
            w.ScenePath = path;
            w.simulateRigidbody = true;
        }
    }

    /// <summary>The prefabs (Assets/Resources/Prefabs/GameWorld): collider sizes in units, layers, body types.</summary>
    public static class Prefabs
    {
        private static readonly Dictionary<string, Vector2> BlockSizes = new Dictionary<string, Vector2>
        {
            { "SquareTiny", new Vector2(0.22f, 0.21f) },
            { "RectSmall", new Vector2(0.70f, 0.22f) },
            { "RectTiny", new Vector2(0.43f, 0.22f) },
            { "RectMedium", new Vector2(1.68f, 0.22f) },
            { "RectBig", new Vector2(2.06f, 0.22f) },
            { "RectFat", new Vector2(0.85f, 0.43f) },
            { "SquareSmall", new Vector2(0.43f, 0.43f) },
            { "SquareHole", new Vector2(0.84f, 0.84f) },
            { "Circle", new Vector2(0.76f, 0.75f) },
            { "CircleSmall", new Vector2(0.41f, 0.41f) },
            { "Triangle", new Vector2(0.83f, 0.82f) },
            { "TriangleHole", new Vector2(0.84f, 0.84f) },
        };

        private static readonly Dictionary<string, Vector2> PigSizes = new Dictionary<string, Vector2>
        {
            { "BasicSmall", new Vector2(0.47f, 0.45f) },
            { "BasicMedium", new Vector2(0.78f, 0.76f) },
            { "BasicBig", new Vector2(0.99f, 0.97f) },
        };

        private static readonly Color32 Wood = new Color32(190, 135, 75, 255);
        private static readonly Color32 Stone = new Color32(130, 130, 135, 255);
        private static readonly Color32 Ice = new Color32(150, 205, 240, 255);

        public static GameObject Block(BlockData data, bool simulated)
        {
            Vector2 size = BlockSizes[data.type]; // unknown type: KeyNotFoundException, as ABWorldAssets.BLOCKS[...]
            return PlayerLoop.Instantiate(() =>
            {
                GameObject g = Body(data.type, data, 10, size, RigidbodyType2D.Dynamic, simulated, Wood);
                ABBlock block = g.AddComponent<ABBlock>();
                block._life = 5f;
                block._woodSprites = new[] { Sprite.Make(data.type + " wood", size.x, size.y, Wood) };
                block._stoneSprites = new[] { Sprite.Make(data.type + " stone", size.x, size.y, Stone) };
                block._iceSprites = new[] { Sprite.Make(data.type + " ice", size.x, size.y, Ice) };
                block.XmlIndex = data.XmlIndex;
                return g;
            });
        }

        public static GameObject Pig(OBjData data, bool simulated)
        {
            Vector2 size = PigSizes[data.type];
            return PlayerLoop.Instantiate(() =>
            {
                // Only BasicSmall is on layer 10 ("Blocks"); the bigger pigs are on layer 0.
                GameObject g = Body(data.type, data, data.type == "BasicSmall" ? 10 : 0, size, RigidbodyType2D.Dynamic, simulated, new Color32(110, 190, 60, 255));
                ABPig pig = g.AddComponent<ABPig>();
                pig._life = data.type == "BasicSmall" ? 2f : data.type == "BasicMedium" ? 4f : 6f;
                pig.XmlIndex = data.XmlIndex;
                return g;
            });
        }

        public static GameObject Tnt(OBjData data, bool simulated)
        {
            return PlayerLoop.Instantiate(() =>
            {
                GameObject g = Body("TNT", data, 10, new Vector2(0.66f, 0.66f), RigidbodyType2D.Dynamic, simulated, new Color32(205, 45, 35, 255));
                ABTNT tnt = g.AddComponent<ABTNT>();
                tnt._life = 2f;
                tnt.XmlIndex = data.XmlIndex;
                return g;
            });
        }

        public static GameObject Platform(PlatData data, bool simulated)
        {
            return PlayerLoop.Instantiate(() =>
            {
                GameObject g = Body("Platform", data, 12, new Vector2(0.64f, 0.64f), RigidbodyType2D.Kinematic, simulated, new Color32(90, 90, 90, 255));
                g.transform.localScale = new Vector3(data.scaleX, data.scaleY, 1f);
                ABGameObject platform = g.AddComponent<ABGameObject>();
                platform.XmlIndex = data.XmlIndex;
                return g;
            });
        }

        public static GameObject Bird(Vector3 at, bool simulated)
        {
            return PlayerLoop.Instantiate(() =>
            {
                GameObject g = new GameObject("BirdRed(Clone)");
                g.layer = 8;
                g.tag = "Bird";
                g.transform.position = at;
                Rigidbody2D body = g.AddComponent<Rigidbody2D>();
                body.gravityScale = 0f;
                body.simulated = simulated;
                g.AddComponent<BoxCollider2D>().size = new Vector2(0.45f, 0.45f);
                return g;
            });
        }

        private static GameObject Body(string type, OBjData data, int layer, Vector2 size, RigidbodyType2D kind, bool simulated, Color32 colour)
        {
            GameObject g = new GameObject(type + "(Clone)");
            g.layer = layer;
            g.transform.position = new Vector3(data.x, data.y, 0f);
            g.transform.rotation = Quaternion.Euler(0f, 0f, data.rotation);
            Rigidbody2D body = g.AddComponent<Rigidbody2D>();
            body.bodyType = kind;
            body.simulated = simulated;
            body.gravityScale = 0.5f;
            body.rotation = data.rotation;
            g.AddComponent<BoxCollider2D>().size = size;
            SpriteRenderer renderer = g.AddComponent<SpriteRenderer>();
            renderer.sprite = Sprite.Make(type, size.x, size.y, colour);
            return g;
        }
    }

    /// <summary>The live worlds and their scripted bodies (Physics2D.Stepping).</summary>
    public static class Worlds
    {
        private static readonly List<ABGameWorld> s_worlds = new List<ABGameWorld>();

        internal static void Add(ABGameWorld world) { s_worlds.Add(world); }

        internal static void Step()
        {
            s_worlds.RemoveAll(w => w == null);
            foreach (ABGameWorld world in s_worlds)
            {
                if (world.Script == null) continue;
                foreach (ABGameObject o in world.Created)
                {
                    if (o == null) continue;
                    Rigidbody2D body = o.GetComponent<Rigidbody2D>();
                    if (body == null || !body.simulated) continue;
                    world.Script.Apply(o, body, world);
                }
                world.Script.BeginContacts(world);
            }
        }
    }

    public sealed class Script
    {
        public int Bodies;
        public int Steps;
        public float[] States;
        public byte[] Alive;
        public List<int[]> Contacts = new List<int[]>();
        public List<float> ContactSpeeds = new List<float>();
        public HashSet<int> OutOfWorld = new HashSet<int>();
        public string Name;

        private long m_contactStep = -1;

        internal void Apply(ABGameObject o, Rigidbody2D body, ABGameWorld world)
        {
            int i = o.XmlIndex;
            if (i < 0 || i >= Bodies) return;
            long k = Math.Min(body.StepsSimulated, Steps - 1);
            int at = (int)(k * Bodies + i);
            Collider2D collider = o.GetComponent<Collider2D>();
            bool dead = collider != null && !collider.enabled;
            // Leaving the world kills in the game's Update (ABGameObject.DestroyIfOutScreen), not here.
            if (Alive[at] == 0 && !dead && !OutOfWorld.Contains(i))
            {
                o.Die();
                dead = true;
            }
            int s = at * 6;
            body.position = new Vector2(States[s], States[s + 1]);
            body.rotation = States[s + 2] * Mathf.Rad2Deg;
            body.velocity = dead ? Vector2.zero : new Vector2(States[s + 3], States[s + 4]);
            body.angularVelocity = States[s + 5] * Mathf.Rad2Deg;
            m_contactStep = body.StepsSimulated;
        }

        /// <summary>The contacts that begin on this step (the step every scripted body just took).</summary>
        internal void BeginContacts(ABGameWorld world)
        {
            if (m_contactStep < 0) return;
            Dictionary<int, Collider2D> colliders = new Dictionary<int, Collider2D>();
            foreach (ABGameObject o in world.Created)
            {
                if (o != null) colliders[o.XmlIndex] = o.GetComponent<Collider2D>();
            }
            for (int c = 0; c < Contacts.Count; c++)
            {
                int[] e = Contacts[c];
                if (e[0] != m_contactStep) continue;
                Collider2D a;
                Collider2D b;
                if (!colliders.TryGetValue(e[1], out a)) continue;
                if (e[2] == -1) b = world.GroundCollider;
                else if (!colliders.TryGetValue(e[2], out b)) continue;
                Physics2D.BeginContact(a, b, new Vector2(ContactSpeeds[c], 0f));
            }
        }

        internal static Script Read(string path)
        {
            using (BinaryReader r = new BinaryReader(File.OpenRead(path)))
            {
                if (Encoding.ASCII.GetString(r.ReadBytes(4)) != "SBDS") throw new InvalidDataException(path + " is not a double script");
                if (r.ReadInt32() != 1) throw new InvalidDataException(path + ": unknown version");
                Script s = new Script { Name = Path.GetFileName(path), Bodies = r.ReadInt32(), Steps = r.ReadInt32() };
                s.States = new float[s.Steps * s.Bodies * 6];
                for (int i = 0; i < s.States.Length; i++) s.States[i] = r.ReadSingle();
                s.Alive = r.ReadBytes(s.Steps * s.Bodies);
                int events = r.ReadInt32();
                for (int i = 0; i < events; i++)
                {
                    int kind = r.ReadInt32();
                    int step = r.ReadInt32();
                    int a = r.ReadInt32();
                    int b = r.ReadInt32();
                    float speed = r.ReadSingle();
                    if (kind == 0)
                    {
                        s.Contacts.Add(new[] { step, a, b });
                        s.ContactSpeeds.Add(speed);
                    }
                    else if (kind == 1)
                    {
                        s.OutOfWorld.Add(a);
                    }
                }
                return s;
            }
        }
    }

    public static class Scripts
    {
        private static readonly Dictionary<string, int> s_loads = new Dictionary<string, int>();

        /// <summary>The script for this load of this level in this scene, or null (bodies stay where they are).</summary>
        internal static Script For(string xml, string scene)
        {
            string dir = Environment.GetEnvironmentVariable("SBEVAL_DOUBLE_SCRIPTS");
            if (string.IsNullOrEmpty(dir) || xml == null) return null;
            string key;
            using (SHA256 sha = SHA256.Create()) key = Hex(sha.ComputeHash(Encoding.UTF8.GetBytes(xml)));
            bool image = scene == Game.SimilarityScene;
            string counter = key + (image ? ":image" : ":stability");
            int n;
            s_loads.TryGetValue(counter, out n);
            s_loads[counter] = ++n;
            List<string> candidates = new List<string>();
            if (image) candidates.Add(key + ".similarity.sbds");
            else candidates.Add(key + ".stability-" + n + ".sbds");
            candidates.Add(key + ".stability-1.sbds");
            candidates.Add(key + ".sbds");
            foreach (string name in candidates)
            {
                string path = Path.Combine(dir, name);
                if (!File.Exists(path)) continue;
                Script s = Script.Read(path);
                PlayerLoop.Trace("script " + name + " (" + s.Bodies + " bodies, " + s.Steps + " steps) for " + Path.GetFileNameWithoutExtension(scene));
                return s;
            }
            PlayerLoop.Trace("no script for level " + key.Substring(0, 12) + " in " + Path.GetFileNameWithoutExtension(scene) + ": its bodies stay where they are");
            return null;
        }

        private static string Hex(byte[] bytes)
        {
            StringBuilder s = new StringBuilder(bytes.Length * 2);
            foreach (byte b in bytes) s.Append(b.ToString("x2"));
            return s.ToString();
        }
    }
}
