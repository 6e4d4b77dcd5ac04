// sbeval bridge, Unity side: the level's bodies as the protocol sees them. Finds what ABGameWorld
// created (children of "Blocks": pigs, blocks, TNT in creation order; children of "Platforms"),
// gives each its XML-order id, samples x, y, angle, velocities and alive after every physics step,
// and turns what happened into events: contact begins (ContactProbe), health lost (the game's own
// ABGameObject._currentLife, read by reflection because it is private), death (collider switched off
// by ABGameObject.Die), removal (GameObject destroyed 0.5 s later, or out of the world) and TNT
// explosions.

using System;
using System.Collections.Generic;
using System.Reflection;
using UnityEngine;

namespace Sbeval.Bridge.Unity
{
    public sealed class BodyTracker
    {
        private sealed class Tracked
        {
            public int Index;
            public BodyInfo Info;
            public GameObject GameObject;
            public Transform Transform;
            public Rigidbody2D Body;
            public Collider2D Collider;
            public ABGameObject Game;
            public ContactProbe Probe;
            public bool IsTnt;
            public float[] Last = new float[6];
            public float Health;
            public bool Dead;
            public bool Removed;
            public bool OutOfWorld;
        }

        private static readonly FieldInfo CurrentLife = typeof(ABGameObject).GetField("_currentLife", BindingFlags.NonPublic | BindingFlags.Instance);

        private readonly List<Tracked> m_bodies = new List<Tracked>();
        private readonly Dictionary<int, long> m_idsByInstance = new Dictionary<int, long>();
        private readonly List<SimEvent> m_contactEvents = new List<SimEvent>();

        public List<BodyInfo> Bodies { get; private set; }
        public int Count { get { return m_bodies.Count; } }

        /// <summary>Finds the created objects, matches them to the XML, attaches contact probes.</summary>
        public static BodyTracker Attach(List<LevelObject> xmlObjects)
        {
            BodyTracker tracker = new BodyTracker();
            List<GameObject> pigs = new List<GameObject>();
            List<GameObject> blocks = new List<GameObject>();
            List<GameObject> tnts = new List<GameObject>();
            List<GameObject> platforms = new List<GameObject>();
            GameObject blocksRoot = GameObject.Find("Blocks");
            if (blocksRoot != null)
            {
                foreach (Transform child in blocksRoot.transform)
                {
                    if (child.GetComponent<ABPig>() != null) pigs.Add(child.gameObject);
                    else if (child.GetComponent<ABTNT>() != null) tnts.Add(child.gameObject);
                    else if (child.GetComponent<ABBlock>() != null) blocks.Add(child.gameObject);
                }
            }
            GameObject platformsRoot = GameObject.Find("Platforms");
            if (platformsRoot != null)
            {
                foreach (Transform child in platformsRoot.transform) platforms.Add(child.gameObject);
            }
            List<Tracked> all = new List<Tracked>();
            tracker.Collect(xmlObjects, "pig", pigs, all);
            tracker.Collect(xmlObjects, "block", blocks, all);
            tracker.Collect(xmlObjects, "platform", platforms, all);
            tracker.Collect(xmlObjects, "tnt", tnts, all);
            // Protocol order: by id (XML order).
            all.Sort((a, b) => a.Info.Id.CompareTo(b.Info.Id));
            tracker.Bodies = new List<BodyInfo>();
            for (int i = 0; i < all.Count; i++)
            {
                all[i].Index = i;
                tracker.m_bodies.Add(all[i]);
                tracker.Bodies.Add(all[i].Info);
                tracker.m_idsByInstance[all[i].GameObject.GetInstanceID()] = all[i].Info.Id;
                ContactProbe probe = all[i].GameObject.AddComponent<ContactProbe>();
                probe.Init(tracker, all[i].Info.Id);
                all[i].Probe = probe;
            }
            return tracker;
        }

        private void Collect(List<LevelObject> xmlObjects, string kind, List<GameObject> created, List<Tracked> into)
        {
            List<double[]> positions = new List<double[]>();
            foreach (GameObject go in created) positions.Add(new double[] { go.transform.position.x, go.transform.position.y });
            int[] ids = LevelObjects.Match(xmlObjects, kind, positions);
            for (int i = 0; i < created.Count; i++)
            {
                if (ids[i] < 0) throw new InvalidOperationException("the game created a " + kind + " at (" + positions[i][0] + ", " + positions[i][1] + ") that is not in the level XML");
                LevelObject xml = xmlObjects[ids[i]];
                GameObject go = created[i];
                ABBlock block = go.GetComponent<ABBlock>();
                Rigidbody2D body = go.GetComponent<Rigidbody2D>();
                Tracked t = new Tracked
                {
                    GameObject = go,
                    Transform = go.transform,
                    Body = body,
                    Collider = go.GetComponent<Collider2D>(),
                    Game = go.GetComponent<ABGameObject>(),
                    IsTnt = kind == "tnt",
                    Info = new BodyInfo
                    {
                        Id = xml.Id,
                        Kind = kind,
                        Type = xml.Type,
                        Material = block != null && kind == "block" ? block._material.ToString() : null,
                        Counted = kind != "platform",
                        X = go.transform.position.x,
                        Y = go.transform.position.y,
                        Angle = (body != null ? body.rotation : go.transform.eulerAngles.z) * Mathf.Deg2Rad,
                    },
                };
                t.Health = Health(t);
                into.Add(t);
            }
        }

        private static float Health(Tracked t)
        {
            if (t.Game == null || CurrentLife == null) return 0f;
            return (float)CurrentLife.GetValue(t.Game);
        }

        /// <summary>Called by ContactProbe during the physics step (OnCollisionEnter2D).</summary>
        internal void OnContact(long id, Collision2D collision)
        {
            GameObject other = collision.collider != null ? collision.collider.gameObject : collision.gameObject;
            long otherId;
            if (other != null && m_idsByInstance.TryGetValue(other.GetInstanceID(), out otherId))
            {
                // Both bodies get the callback; report the pair once.
                if (id < otherId) m_contactEvents.Add(SimEvent.Contact(0, id, otherId, collision.relativeVelocity.magnitude));
                return;
            }
            long b = other != null && other.name == "Ground" ? -1 : -2;
            m_contactEvents.Add(SimEvent.Contact(0, id, b, collision.relativeVelocity.magnitude));
        }

        /// <summary>Moves the contacts of the step just simulated into `events`, stamped with its number.</summary>
        public void DrainContacts(long step, List<SimEvent> events)
        {
            foreach (SimEvent e in m_contactEvents)
            {
                e.Step = step;
                events.Add(e);
            }
            m_contactEvents.Clear();
        }

        /// <summary>Writes every body's state for `step` into the batcher and adds health / death / removal events.</summary>
        public void Sample(long step, FrameBatcher batcher, List<SimEvent> events)
        {
            foreach (Tracked t in m_bodies)
            {
                long id = t.Info.Id;
                if (t.GameObject == null)
                {
                    // Destroyed: keep the last state seen, dead.
                    if (!t.Removed)
                    {
                        t.Removed = true;
                        if (!t.Dead)
                        {
                            t.Dead = true;
                            events.Add(SimEvent.Destroyed(step, id));
                        }
                        events.Add(SimEvent.Removed(step, id, t.OutOfWorld ? "out-of-world" : "death"));
                    }
                    batcher.Set(t.Index, t.Last[0], t.Last[1], t.Last[2], t.Last[3], t.Last[4], t.Last[5], false);
                    continue;
                }
                Vector3 p = t.Transform.position;
                float angle = (t.Body != null ? t.Body.rotation : t.Transform.eulerAngles.z) * Mathf.Deg2Rad;
                Vector2 v = t.Body != null ? t.Body.velocity : Vector2.zero;
                float omega = t.Body != null ? t.Body.angularVelocity * Mathf.Deg2Rad : 0f;
                t.Last[0] = p.x;
                t.Last[1] = p.y;
                t.Last[2] = angle;
                t.Last[3] = v.x;
                t.Last[4] = v.y;
                t.Last[5] = omega;
                if (t.Game != null && t.Game.IsDying) t.OutOfWorld = true;

                float health = Health(t);
                if (health < t.Health) events.Add(SimEvent.Damage(step, id, t.Health - health, health));
                t.Health = health;

                bool colliderOn = t.Collider == null || t.Collider.enabled;
                if (!colliderOn && !t.Dead)
                {
                    t.Dead = true;
                    events.Add(SimEvent.Destroyed(step, id));
                    if (t.IsTnt) events.Add(SimEvent.Explosion(step, id, p.x, p.y));
                }
                batcher.Set(t.Index, p.x, p.y, angle, v.x, v.y, omega, colliderOn);
            }
        }

        /// <summary>Removes the contact probes (the scene is about to be unloaded anyway).</summary>
        public void Detach()
        {
            foreach (Tracked t in m_bodies)
            {
                if (t.Probe != null) UnityEngine.Object.Destroy(t.Probe);
            }
        }
    }

    /// <summary>Forwards OnCollisionEnter2D (a contact beginning, the moment the game deals damage) to the tracker.</summary>
    public sealed class ContactProbe : MonoBehaviour
    {
        private BodyTracker m_tracker;
        private long m_id;

        internal void Init(BodyTracker tracker, long id)
        {
            m_tracker = tracker;
            m_id = id;
        }

        private void OnCollisionEnter2D(Collision2D collision)
        {
            if (m_tracker != null) m_tracker.OnContact(m_id, collision);
        }
    }
}
