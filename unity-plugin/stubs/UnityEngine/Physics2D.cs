// Compile-only stand-ins (Unity 2019.4 signatures): 2D physics.

namespace UnityEngine
{
    public enum RigidbodyType2D { Dynamic = 0, Kinematic = 1, Static = 2 }

    public sealed class Rigidbody2D : Component
    {
        public Vector2 position { get; set; }
        /// <summary>Degrees.</summary>
        public float rotation { get; set; }
        public Vector2 velocity { get; set; }
        /// <summary>Degrees per second.</summary>
        public float angularVelocity { get; set; }
        public float gravityScale { get; set; }
        public bool simulated { get; set; }
        public RigidbodyType2D bodyType { get; set; }
    }

    public class Collider2D : Behaviour
    {
        public Bounds bounds { get { return new Bounds(); } }
        public Rigidbody2D attachedRigidbody { get { return null; } }
        public PhysicsMaterial2D sharedMaterial { get; set; }
    }

    public sealed class BoxCollider2D : Collider2D { }

    public sealed class PolygonCollider2D : Collider2D { }

    public sealed class PhysicsMaterial2D : Object
    {
        public float friction { get; set; }
        public float bounciness { get; set; }
    }

    public class Collision2D
    {
        /// <summary>The incoming (other) collider.</summary>
        public Collider2D collider { get { return null; } }
        /// <summary>This object's collider.</summary>
        public Collider2D otherCollider { get { return null; } }
        public Rigidbody2D rigidbody { get { return null; } }
        public GameObject gameObject { get { return null; } }
        public Transform transform { get { return null; } }
        public Vector2 relativeVelocity { get { return Vector2.zero; } }
    }

    public static class Physics2D
    {
        public static bool autoSimulation { get; set; }
        public static bool Simulate(float step) { return false; }
    }
}
