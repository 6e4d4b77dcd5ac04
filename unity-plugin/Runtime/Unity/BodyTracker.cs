// sbeval bridge, Unity side: the level's bodies as the protocol sees them. Attached right after
// ABGameWorld.DecodeLevel created them and before their first physics step (LevelRun.BeforeStep, from
// the host's FixedUpdate): finds what the game created (children of "Blocks": pigs, blocks, TNT; of
// "Platforms"), gives each its XML-order id by creation order, attaches a ContactProbe to each, and
// then samples x, y, angle, velocities and alive after every physics step and turns what happened
// into events: contact begins (ContactProbe), health lost (the game's own ABGameObject._currentLife —
// a private field, read by reflection: the one non-public member the plugin touches; without it no
// damage events are sent), death (collider switched off by ABGameObject.Die), removal (GameObject
// destroyed 0.5 s later, or out of the world) and TNT explosions.

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
        private static bool s_warnedHealth;

        private readonly List<Tracked> m_bodies = new List<Tracked>();
        private readonly Dictionary<int, long> m_idsByInstance = new Dictionary<int, long>();
        private readonly List<SimEvent> m_contactEvents = new List<SimEvent>();

        public List<BodyInfo> Bodies { get; private set; }
        public int Count { get { return m_bodies.Count; } }

        /// <summary>What the game created under "Blocks" and "Platforms", by kind, in creation (sibling) order.</summary>
        private static void Created(List<GameObject> pigs, List<GameObject> blocks, List<GameObject> tnts, List<GameObject> platforms)
        {
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
        }

        /// <summary>
        /// The first body that has already been through a physics step (a freshly created body is at
        /// rest; one step of gravity moves every dynamic block), or null. Called before the first step:
        /// a non-null answer means Unity's player loop ran a step before the plugin saw the level, so
        /// every frame label would be one step late.
        /// </summary>
        public static string AlreadyStepped()
        {
            List<GameObject> all = new List<GameObject>();
            Created(all, all, all, all);
            foreach (GameObject go in all)
            {
                Rigidbody2D body = go.GetComponent<Rigidbody2D>();
                if (body == null || !body.simulated) continue;
                if (body.velocity.x != 0f || body.velocity.y != 0f || body.angularVelocity != 0f) return go.name + " (velocity " + body.velocity.x + ", " + body.velocity.y + ")";
            }
            return null;
        }

        /// <summary>Finds the created objects, matches them to the XML by creation order, attaches contact probes.</summary>
        public static BodyTracker Attach(List<LevelObject> xmlObjects, Action<string> warn)
        {
            List<GameObject> pigs = new List<GameObject>();
            List<GameObject> blocks = new List<GameObject>();
            List<GameObject> tnts = new List<GameObject>();
            List<GameObject> platforms = new List<GameObject>();
            Created(pigs, blocks, tnts, platforms);
            BodyTracker tracker = new BodyTracker();
            List<Tracked> all = new List<Tracked>();
            tracker.Collect(xmlObjects, "pig", pigs, all, warn);
            tracker.Collect(xmlObjects, "block", blocks, all, warn);
            tracker.Collect(xmlObjects, "platform", platforms, all, warn);
            tracker.Collect(xmlObjects, "tnt", tnts, all, warn);
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
            if (CurrentLife == null && !s_warnedHealth)
            {
                s_warnedHealth = true;
                warn("ABGameObject._currentLife not found: no damage events (the game's damage still applies)");
            }
            return tracker;
        }

        private void Collect(List<LevelObject> xmlObjects, string kind, List<GameObject> created, List<Tracked> into, Action<string> warn)
        {
            int[] ids = LevelObjects.MatchByCreationOrder(xmlObjects, kind, created.Count);
            for (int i = 0; i < created.Count; i++)
            {
                LevelObject xml = xmlObjects[ids[i]];
                GameObject go = created[i];
                Vector3 p = go.transform.position;
                // At step 0 the game has put each object exactly where the XML says (as a float).
                double offset = LevelObjects.Offset(xml, p.x, p.y);
                if (offset > 1e-3) warn(kind + " " + xml.Id + " (" + xml.Type + ") was created " + offset.ToString("0.####") + " from its XML position");
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
                        X = p.x,
                        Y = p.y,
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

        /// <summary>Writes every body's state for `step` into the batcher and adds health / death events.</summary>
        public void Sample(long step, FrameBatcher batcher, List<SimEvent> events)
        {
            foreach (Tracked t in m_bodies)
            {
                long id = t.Info.Id;
                if (t.GameObject == null)
                {
                    // Destroyed: keep the last state seen, dead. (Removals are normally noted at the end of
                    // the frame they happen in, NoteRemovals; this covers any other way to vanish.)
                    if (!t.Removed) NoteRemoval(t, step, events);
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

        /// <summary>
        /// At the end of a frame (LateUpdate, after the game's Update destroyed what it destroys):
        /// `removed` for each body gone since, stamped `step` — the first step whose end-of-frame read no
        /// longer finds the object, as the evaluator's reads go.
        /// </summary>
        public void NoteRemovals(long step, List<SimEvent> events)
        {
            foreach (Tracked t in m_bodies)
            {
                if (!t.Removed && t.GameObject == null) NoteRemoval(t, step, events);
            }
        }

        private static void NoteRemoval(Tracked t, long step, List<SimEvent> events)
        {
            t.Removed = true;
            if (!t.Dead)
            {
                t.Dead = true;
                events.Add(SimEvent.Destroyed(step, t.Info.Id));
            }
            events.Add(SimEvent.Removed(step, t.Info.Id, t.OutOfWorld ? "out-of-world" : "death"));
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
}
