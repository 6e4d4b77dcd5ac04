// TEST DOUBLE — a fake Science Birds game, not the game. It has the public members of the
// chatgpt4pcg/modified-science-birds (HEAD 07419b8) types the plugin uses, with their signatures, and
// behaves like them where the plugin depends on it:
// - LevelList / LevelLoader read the XML (numbers with the current culture, as the game's
//   Convert.ToDouble does); the world scenes (StabilityGameWorld, SimilarityGameWorld) hold
//   "Blocks", "Birds", "Platforms", the gameplay "Camera" and the ABGameWorld, whose Start decodes the
//   level: ground tiles, "Slingshot", birds, then pigs, blocks (XML order), platforms, TNT, each a
//   "<type>(Clone)" with a Rigidbody2D, a BoxCollider2D of the prefab's collider size, a
//   SpriteRenderer and its ABxxx script, parented as the game parents them; an unknown type stops
//   DecodeLevel with an exception, as ABWorldAssets' dictionary lookup does;
// - ABGameObject: private `_currentLife`, DealDamage on OnCollisionEnter2D, Die = velocity 0, sprite
//   colour cleared, collider off, destroyed 0.5 s later (Invoke); the game logic of the Update phase:
//   `DestroyIfOutScreen` (an object whose x-extent leaves ±LevelWidth/2 dies, every frame), so what the
//   plugin sees right after a physics step and what a frame shows after its Update can differ;
// - OCRSettings (the asset at Assets/ICE/Settings/OCRSettings.asset) has black OCR sprites for RectSmall
//   (0.72 × 0.24) and SquareTiny (0.24 × 0.23).
// What it does NOT have is physics: every body follows a script (Double.cs) — a recorded frame stream
// per level — or stays where it was created. Deaths come from the script's alive flags, except
// leaving the world, which the Update-phase rule above decides. Test-only markers in a level's XML
// (comments): `sbeval-double: load-frames=N` makes loading the world scene take N frames (a slow first
// load), `sbeval-double: no-decode` makes ABGameWorld.Start throw before it decodes anything.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Xml;
using UnityEngine;

public enum MATERIALS { wood, stone, ice }

public class ABSingleton<T> : MonoBehaviour where T : MonoBehaviour
{
    private static T _instance;

    protected ABSingleton() { }

    public static T Instance
    {
        get
        {
            if (_instance == null) _instance = (T)FindObjectOfType(typeof(T));
            if (_instance == null)
            {
                GameObject singleton = new GameObject();
                _instance = singleton.AddComponent<T>();
                singleton.name = typeof(T).ToString();
                DontDestroyOnLoad(singleton);
            }
            return _instance;
        }
    }
}

public class ABGameObject : MonoBehaviour
{
    private float _currentLife;

    protected Collider2D _collider;
    protected Rigidbody2D _rigidBody;
    protected SpriteRenderer _spriteRenderer;

    public Sprite[] _sprites;
    public AudioClip[] _clips;
    public float _life = 10f;
    public float _timeToDie = 1f;

    public bool IsDying { get; set; }

    /// <summary>Test double: the object's index among the XML's objects (what the script is keyed by).</summary>
    internal int XmlIndex = -1;
    /// <summary>ABParticleSystem._systemLifetime of the prefabs.</summary>
    internal const float SystemLifetime = 0.5f;

    protected virtual void Awake()
    {
        _collider = GetComponent<Collider2D>();
        _rigidBody = GetComponent<Rigidbody2D>();
        _spriteRenderer = GetComponent<SpriteRenderer>();
        _currentLife = _life;
        IsDying = false;
    }

    protected virtual void Start() { }

    /// <summary>As the game: every frame, an object whose x-extent lies outside the world dies (DestroyIfOutScreen).</summary>
    protected virtual void Update()
    {
        DestroyIfOutScreen();
    }

    private void DestroyIfOutScreen()
    {
        if (_collider != null && ABGameWorld.Instance.IsObjectOutOfWorld(transform, _collider))
        {
            IsDying = true;
            Die(false);
        }
    }

    public virtual void Die(bool withEffect = true)
    {
        _rigidBody.velocity = Vector2.zero;
        _spriteRenderer.color = Color.clear;
        _collider.enabled = false;
        Invoke("WaitParticlesAndDestroy", SystemLifetime);
    }

    private void WaitParticlesAndDestroy()
    {
        Destroy(gameObject);
    }

    public virtual void OnCollisionEnter2D(Collision2D collision)
    {
        DealDamage(collision.relativeVelocity.magnitude);
    }

    /// <summary>The game's rule minus the death: in the double deaths come from the script.</summary>
    public void DealDamage(float damage)
    {
        _currentLife -= damage;
    }
}

public class ABBlock : ABGameObject
{
    public MATERIALS _material;
    public uint _points;
    public Sprite[] _woodSprites;
    public Sprite[] _stoneSprites;
    public Sprite[] _iceSprites;

    protected override void Awake()
    {
        base.Awake();
        SetMaterial(_material);
    }

    public void SetMaterial(MATERIALS material)
    {
        _material = material;
        switch (material)
        {
            case MATERIALS.wood: _sprites = _woodSprites; break;
            case MATERIALS.stone: _sprites = _stoneSprites; break;
            case MATERIALS.ice: _sprites = _iceSprites; break;
        }
        _spriteRenderer.sprite = _sprites[0];
    }
}

public class ABCharacter : ABGameObject { }

public class ABPig : ABCharacter { }

public class ABTNT : ABGameObject
{
    public float _explosionArea = 1f;
    public float _explosionPower = 1f;
    public float _explosionDamage = 1f;
}

public class ABGameplayCamera : MonoBehaviour
{
    public float _dampTime;
    public float _minWidth;
    public float _maxWidth;
}

public class OBjData
{
    public string type;
    public float x;
    public float y;
    public float rotation;
    internal int XmlIndex;
}

public class BlockData : OBjData
{
    public string material;
}

public class PlatData : OBjData
{
    public float scaleX = 1f;
    public float scaleY = 1f;
}

public class BirdData
{
    public string type;
}

public class ABLevel
{
    public int width = 1;
    public List<BirdData> birds = new List<BirdData>();
    public List<OBjData> pigs = new List<OBjData>();
    public List<BlockData> blocks = new List<BlockData>();
    public List<PlatData> platforms = new List<PlatData>();
    public List<OBjData> tnts = new List<OBjData>();
    public OBjData slingshot = new OBjData();
    /// <summary>Test double: the XML text the level came from (the script's key).</summary>
    internal string Source;
}

public class LevelLoader
{
    /// <summary>Reads a level the way the game does: numbers with the current culture (Convert.ToDouble).</summary>
    public static ABLevel LoadXmlLevel(string xmlString)
    {
        ABLevel level = new ABLevel { Source = xmlString };
        XmlReaderSettings settings = new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, IgnoreComments = true, IgnoreWhitespace = true };
        bool inObjects = false;
        int index = 0;
        using (XmlReader reader = XmlReader.Create(new StringReader(xmlString), settings))
        {
            while (reader.Read())
            {
                if (reader.NodeType == XmlNodeType.EndElement && reader.LocalName == "GameObjects") inObjects = false;
                if (reader.NodeType != XmlNodeType.Element) continue;
                switch (reader.LocalName)
                {
                    case "Level":
                        if (reader.GetAttribute("width") != null) level.width = Convert.ToInt32(reader.GetAttribute("width"), CultureInfo.CurrentCulture);
                        break;
                    case "Bird":
                        level.birds.Add(new BirdData { type = reader.GetAttribute("type") });
                        break;
                    case "Slingshot":
                        level.slingshot = new OBjData { x = Number(reader, "x"), y = Number(reader, "y") };
                        break;
                    case "GameObjects":
                        inObjects = !reader.IsEmptyElement;
                        break;
                    case "Block":
                        if (inObjects) level.blocks.Add(Read(new BlockData { material = reader.GetAttribute("material") }, reader, index++));
                        break;
                    case "Pig":
                        if (inObjects) level.pigs.Add(Read(new OBjData(), reader, index++));
                        break;
                    case "TNT":
                        if (inObjects) level.tnts.Add(Read(new OBjData(), reader, index++));
                        break;
                    case "Platform":
                        if (inObjects)
                        {
                            PlatData p = Read(new PlatData(), reader, index++);
                            if (reader.GetAttribute("scaleX") != null) p.scaleX = Number(reader, "scaleX");
                            if (reader.GetAttribute("scaleY") != null) p.scaleY = Number(reader, "scaleY");
                            level.platforms.Add(p);
                        }
                        break;
                }
            }
        }
        return level;
    }

    private static T Read<T>(T data, XmlReader reader, int index) where T : OBjData
    {
        data.type = reader.GetAttribute("type");
        data.x = Number(reader, "x");
        data.y = Number(reader, "y");
        data.rotation = reader.GetAttribute("rotation") != null ? Number(reader, "rotation") : 0f;
        data.XmlIndex = index;
        return data;
    }

    private static float Number(XmlReader reader, string name)
    {
        return (float)Convert.ToDouble(reader.GetAttribute(name), CultureInfo.CurrentCulture);
    }
}

public class LevelList : ABSingleton<LevelList>
{
    private ABLevel[] _levels;
    public int CurrentIndex;

    public ABLevel GetCurrentLevel()
    {
        if (_levels == null || CurrentIndex > _levels.Length - 1) return null;
        return _levels[CurrentIndex];
    }

    public void LoadLevelsFromSource(string[] levelSource, bool shuffle = false)
    {
        CurrentIndex = 0;
        _levels = new ABLevel[levelSource.Length];
        for (int i = 0; i < levelSource.Length; i++) _levels[i] = LevelLoader.LoadXmlLevel(levelSource[i]);
    }
}

public class ABGameWorld : ABSingleton<ABGameWorld>
{
    public bool _isSimulation;
    public bool simulateRigidbody = true;
    public float LevelWidth { get; set; }
    public float LevelHeight { get; set; }

    private Transform _blocksTransform;
    private Transform _birdsTransform;
    private Transform _plaftformsTransform;

    /// <summary>Test double: the scene this world was loaded in, and the created objects the script moves.</summary>
    internal string ScenePath;
    internal readonly List<ABGameObject> Created = new List<ABGameObject>();
    internal Collider2D GroundCollider;
    internal ScienceBirds.TestDouble.Script Script;

    private void Awake()
    {
        _blocksTransform = GameObject.Find("Blocks").transform;
        _birdsTransform = GameObject.Find("Birds").transform;
        _plaftformsTransform = GameObject.Find("Platforms").transform;
    }

    private void Start()
    {
        ABLevel currentLevel = LevelList.Instance.GetCurrentLevel();
        if (currentLevel != null && currentLevel.Source != null && currentLevel.Source.Contains("sbeval-double: no-decode"))
        {
            throw new InvalidOperationException("test double: this level is marked no-decode (an exception in ABGameWorld.Start)");
        }
        if (currentLevel != null) DecodeLevel(currentLevel);
    }

    /// <summary>As the game (ABGameWorld.IsObjectOutOfWorld): the x-extent of the collider's bounds is entirely outside ±LevelWidth/2.</summary>
    public bool IsObjectOutOfWorld(Transform abGameObject, Collider2D abCollider)
    {
        Vector2 halfSize = abCollider.bounds.size / 2f;
        return abGameObject.position.x - halfSize.x > LevelWidth / 2f || abGameObject.position.x + halfSize.x < -LevelWidth / 2f;
    }

    public void DecodeLevel(ABLevel currentLevel)
    {
        LevelHeight = 11.58f;
        LevelWidth = currentLevel.width * 17.5f;
        Script = ScienceBirds.TestDouble.Scripts.For(currentLevel.Source, ScenePath);
        ScienceBirds.TestDouble.Worlds.Add(this);

        // Ground: Landscape tiles 17.49 apart from −LevelWidth/4 (width > 1); the collider's top at y = −3.5.
        float x = currentLevel.width > 1 ? -LevelWidth / 4f : 0f;
        for (int i = 0; i < currentLevel.width; i++)
        {
            GameObject landscape = new GameObject("Landscape(Clone)");
            landscape.transform.parent = transform;
            GameObject ground = new GameObject("Ground");
            ground.transform.position = new Vector3(x, -4.3f - 1.4034476f, 0f);
            ground.transform.parent = landscape.transform;
            BoxCollider2D box = ground.AddComponent<BoxCollider2D>();
            box.size = new Vector2(17.49f, 4.4068956f);
            if (GroundCollider == null) GroundCollider = box;
            x += 17.5f - 0.01f;
        }

        GameObject slingshot = new GameObject("Slingshot");
        slingshot.transform.position = new Vector3(currentLevel.slingshot.x, currentLevel.slingshot.y, 0f);
        slingshot.transform.parent = transform;

        for (int i = 0; i < currentLevel.birds.Count; i++)
        {
            GameObject bird = ScienceBirds.TestDouble.Prefabs.Bird(new Vector3(currentLevel.slingshot.x - 0.5f * (i + 1), currentLevel.slingshot.y, 0f), simulateRigidbody);
            bird.name = "bird_" + i;
            bird.transform.parent = _birdsTransform;
        }
        foreach (OBjData pig in currentLevel.pigs) Add(ScienceBirds.TestDouble.Prefabs.Pig(pig, simulateRigidbody), _blocksTransform);
        foreach (BlockData block in currentLevel.blocks)
        {
            GameObject made = ScienceBirds.TestDouble.Prefabs.Block(block, simulateRigidbody);
            Add(made, _blocksTransform);
            MATERIALS material = (MATERIALS)Enum.Parse(typeof(MATERIALS), block.material);
            made.GetComponent<ABBlock>().SetMaterial(material);
        }
        foreach (PlatData platform in currentLevel.platforms) Add(ScienceBirds.TestDouble.Prefabs.Platform(platform, simulateRigidbody), _plaftformsTransform);
        foreach (OBjData tnt in currentLevel.tnts) Add(ScienceBirds.TestDouble.Prefabs.Tnt(tnt, simulateRigidbody), _blocksTransform);
    }

    private void Add(GameObject made, Transform parent)
    {
        made.transform.parent = parent;
        Created.Add(made.GetComponent<ABGameObject>());
    }

    private void OnDestroy() { }
}

namespace ICE.Evaluation
{
    [CreateAssetMenu(fileName = "OCRSettings", menuName = "ICE/Settings/OCR Settings")]
    public class OCRSettings : ScriptableObject
    {
        internal readonly Dictionary<string, Sprite> Sprites = new Dictionary<string, Sprite>();

        public Sprite GetOCRSprite(string blockName)
        {
            Sprite sprite;
            return Sprites.TryGetValue(blockName, out sprite) ? sprite : null;
        }
    }

    public static class Utils
    {
        public static string GetAssetPath(UnityEngine.Object asset) { return ""; }

        public static string GetBlockType(GameObject block)
        {
            int sIndex = block.name.IndexOf("(Clone)", 0, StringComparison.Ordinal);
            return sIndex >= 0 ? block.name.Substring(0, sIndex) : block.name;
        }
    }
}
