// sbeval bridge, Unity side: forwards OnCollisionEnter2D (a contact beginning, the moment the game
// deals damage) of one level object to its BodyTracker. Added by BodyTracker.Attach before the body's
// first physics step, so contacts of step 1 are seen. In a file of its own, named as the class, as
// Unity expects of a MonoBehaviour.

using UnityEngine;

namespace Sbeval.Bridge.Unity
{
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
