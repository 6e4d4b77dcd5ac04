// TEST DOUBLE — not Unity, and no physics engine: bodies move only when someone scripts them. Each
// physics step (PlayerLoop's FixedUpdate phase) raises Physics2D.Stepping, in which the game double
// sets each body's state for that step and reports the contacts that begin; the double then sends
// OnCollisionEnter2D to both objects, as Box2D's contact listener does at the end of Unity's step.
// Signatures: Unity 2019.4.

using System;
using System.Collections.Generic;

namespace UnityEngine
{
    public enum RigidbodyType2D { Dynamic = 0, Kinematic = 1, Static = 2 }

    public sealed class Rigidbody2D : Component
    {
        private bool m_simulated = true;

        public Vector2 position { get { return transform.position; } set { transform.position = new Vector3(value.x, value.y, transform.position.z); } }
        /// <summary>Degrees.</summary>
        public float rotation { get { return transform.AngleDegrees; } set { transform.AngleDegrees = value; } }
        public Vector2 velocity { get; set; }
        /// <summary>Degrees per second.</summary>
        public float angularVelocity { get; set; }
        public float gravityScale { get; set; }
        public float mass { get; set; }
        public bool simulated { get { return m_simulated; } set { m_simulated = value; } }
        public RigidbodyType2D bodyType { get; set; }

        /// <summary>Physics steps this body has taken part in (test double bookkeeping).</summary>
        internal long StepsSimulated;
    }

    public class Collider2D : Behaviour
    {
        public virtual Bounds bounds { get { return new Bounds(transform.position, Vector3.zero); } }
        public Rigidbody2D attachedRigidbody { get { return GetComponent<Rigidbody2D>(); } }
        public PhysicsMaterial2D sharedMaterial { get; set; }
        public Vector2 offset { get; set; }
    }

    public sealed class BoxCollider2D : Collider2D
    {
        public Vector2 size { get; set; }

        /// <summary>The world AABB of the rotated box (no skin: the evaluator's images show none).</summary>
        public override Bounds bounds
        {
            get
            {
                double a = transform.AngleDegrees * Math.PI / 180.0;
                double c = Math.Abs(Math.Cos(a));
                double s = Math.Abs(Math.Sin(a));
                Vector3 scale = transform.localScale;
                double w = size.x * Math.Abs(scale.x);
                double h = size.y * Math.Abs(scale.y);
                float ex = (float)(c * w / 2 + s * h / 2);
                float ey = (float)(s * w / 2 + c * h / 2);
                Vector3 p = transform.position;
                return new Bounds(new Vector3(p.x + offset.x, p.y + offset.y, p.z), new Vector3(2 * ex, 2 * ey, 0f));
            }
        }
    }

    public sealed class PolygonCollider2D : Collider2D { }

    public sealed class PhysicsMaterial2D : Object
    {
        public float friction { get; set; }
        public float bounciness { get; set; }
    }

    public class Collision2D
    {
        internal Collider2D m_collider;
        internal Collider2D m_otherCollider;
        internal Vector2 m_relativeVelocity;

        /// <summary>The incoming (other) collider.</summary>
        public Collider2D collider { get { return m_collider; } }
        /// <summary>This object's collider.</summary>
        public Collider2D otherCollider { get { return m_otherCollider; } }
        public Rigidbody2D rigidbody { get { return m_collider != null ? m_collider.attachedRigidbody : null; } }
        public GameObject gameObject { get { return m_collider != null ? m_collider.gameObject : null; } }
        public Transform transform { get { return m_collider != null ? m_collider.transform : null; } }
        public Vector2 relativeVelocity { get { return m_relativeVelocity; } }
    }

    public static class Physics2D
    {
        private struct Contact
        {
            public Collider2D A;
            public Collider2D B;
            public Vector2 RelativeVelocity;
        }

        private static readonly List<Contact> s_begun = new List<Contact>();

        public static bool autoSimulation { get; set; }

        public static bool Simulate(float step)
        {
            throw new NotSupportedException("the test double steps physics only from its player loop");
        }

        /// <summary>Raised once per physics step: the game double moves its bodies and reports contacts here.</summary>
        internal static event Action Stepping;

        /// <summary>A contact between two enabled colliders begins in this step.</summary>
        internal static void BeginContact(Collider2D a, Collider2D b, Vector2 relativeVelocity)
        {
            s_begun.Add(new Contact { A = a, B = b, RelativeVelocity = relativeVelocity });
        }

        internal static void Step()
        {
            foreach (Object o in PlayerLoop.LiveObjects())
            {
                Rigidbody2D body = o as Rigidbody2D;
                if (body != null && body.simulated) body.StepsSimulated++;
            }
            if (Stepping != null) Stepping();
            Contact[] begun = s_begun.ToArray();
            s_begun.Clear();
            foreach (Contact c in begun)
            {
                if (c.A == null || c.B == null || !c.A.enabled || !c.B.enabled) continue;
                Send(c.A, c.B, c.RelativeVelocity);
                Send(c.B, c.A, c.RelativeVelocity * -1f);
            }
        }

        private static void Send(Collider2D self, Collider2D other, Vector2 relativeVelocity)
        {
            Collision2D collision = new Collision2D { m_collider = other, m_otherCollider = self, m_relativeVelocity = relativeVelocity };
            foreach (Component c in self.gameObject.m_components.ToArray())
            {
                MonoBehaviour b = c as MonoBehaviour;
                if (b != null && !b.m_destroyed) PlayerLoop.CallMessage(b, "OnCollisionEnter2D", collision);
            }
        }
    }
}
