// Compile-only stand-ins for the Science Birds / ICE evaluator types the sbeval plugin uses, with the
// signatures of chatgpt4pcg/modified-science-birds (HEAD 07419b8): Assets/Scripts/GameWorld/*.cs,
// Assets/Scripts/Levels/*.cs, Assets/Scripts/Utils/*.cs, Assets/ICE/Scripts/Evaluation/*.cs.
// Only the members the plugin touches; bodies never run (the real scripts replace these in Unity).

using UnityEngine;

public enum MATERIALS { wood, stone, ice }

public class ABSingleton<T> : MonoBehaviour where T : MonoBehaviour
{
    protected ABSingleton() { }
    public static T Instance { get { return null; } }
}

public class ABGameObject : MonoBehaviour
{
#pragma warning disable 0169, 0649
    private float _currentLife;
#pragma warning restore 0169, 0649
    public Sprite[] _sprites;
    public AudioClip[] _clips;
    public float _life = 10f;
    public float _timeToDie = 1f;
    public bool IsDying { get; set; }
    public virtual void Die(bool withEffect = true) { }
    public void DealDamage(float damage) { }
    public virtual void OnCollisionEnter2D(Collision2D collision) { }
}

public class ABBlock : ABGameObject
{
    public MATERIALS _material;
    public uint _points;
    public Sprite[] _woodSprites;
    public Sprite[] _stoneSprites;
    public Sprite[] _iceSprites;
    public void SetMaterial(MATERIALS material) { }
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

public class ABGameWorld : ABSingleton<ABGameWorld>
{
    public bool _isSimulation;
    public bool simulateRigidbody;
    public float LevelWidth { get; set; }
    public float LevelHeight { get; set; }
    public void DecodeLevel(ABLevel currentLevel) { }
}

public class ABLevel
{
    public int width;
}

public class LevelLoader
{
    public static ABLevel LoadXmlLevel(string xmlString) { return null; }
}

public class LevelList : ABSingleton<LevelList>
{
    public int CurrentIndex;
    public ABLevel GetCurrentLevel() { return null; }
    public void LoadLevelsFromSource(string[] levelSource, bool shuffle = false) { }
}

namespace ICE.Evaluation
{
    [CreateAssetMenu(fileName = "OCRSettings", menuName = "ICE/Settings/OCR Settings")]
    public class OCRSettings : ScriptableObject
    {
        public Sprite GetOCRSprite(string blockName) { return null; }
    }

    public static class Utils
    {
        public static string GetAssetPath(Object asset) { return null; }
        public static string GetBlockType(GameObject block) { return null; }
    }
}
