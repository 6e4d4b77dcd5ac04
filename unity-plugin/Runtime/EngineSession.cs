// sbeval bridge: the engine side of a session as a state machine (bridge/PROTOCOL.md §3). Pure: it
// checks what arrives and builds what leaves; the client does the I/O. Thread-safe (the receive loop
// and the game's main thread both use it).

using System;
using System.Collections.Generic;

namespace Sbeval.Bridge
{
    public enum SessionState { Connecting, HelloSent, Ready, Running, Closed }

    public sealed class EngineSession
    {
        private readonly object m_lock = new object();
        private readonly string m_token;
        private readonly string m_instance;
        private readonly EngineIdentity m_engine;
        private readonly Capabilities m_capabilities;
        private readonly int m_maxMessageBytes;

        private SessionState m_state = SessionState.Connecting;
        private LoadMessage m_run;
        private bool m_loaded;
        private long m_bodyCount;
        private long m_nextStep;
        private bool m_captured;
        private bool m_cancelRequested;

        public EngineSession(string token, string instance, EngineIdentity engine, Capabilities capabilities, int maxMessageBytes)
        {
            m_token = token;
            m_instance = instance;
            m_engine = engine;
            m_capabilities = capabilities;
            m_maxMessageBytes = maxMessageBytes;
        }

        public SessionState State { get { lock (m_lock) return m_state; } }

        /// <summary>The welcome the orchestrator sent (null before).</summary>
        public WelcomeMessage Welcome { get; private set; }

        /// <summary>The compatibility warning, if the orchestrator's minor version differs.</summary>
        public string Warning { get; private set; }

        /// <summary>The running level's load message, or null.</summary>
        public LoadMessage Run { get { lock (m_lock) return m_run; } }

        /// <summary>True once the orchestrator asked to cancel the running level.</summary>
        public bool CancelRequested { get { lock (m_lock) return m_cancelRequested; } }

        public HelloMessage Hello()
        {
            lock (m_lock)
            {
                if (m_state != SessionState.Connecting) throw new InvalidOperationException("hello was already sent");
                m_state = SessionState.HelloSent;
                return new HelloMessage
                {
                    Protocol = Protocol.Version,
                    Token = m_token,
                    Instance = m_instance,
                    Engine = m_engine,
                    Capabilities = m_capabilities,
                    MaxMessageBytes = m_maxMessageBytes,
                };
            }
        }

        /// <summary>
        /// Checks a message from the orchestrator against the session state and applies it. Throws
        /// ProtocolException for anything the protocol does not allow here.
        /// </summary>
        public void Receive(Message message)
        {
            lock (m_lock)
            {
                string type = message.Type;
                if (m_state == SessionState.Closed) return;
                if (m_state == SessionState.HelloSent)
                {
                    if (type == "error") return; // the refusal; the close that follows ends the session
                    if (type != "welcome") throw new ProtocolException("unexpected", "expected \"welcome\", got \"" + type + "\"");
                    WelcomeMessage welcome = (WelcomeMessage)message;
                    CompatibilityResult c = Compatibility.Check(Protocol.Version, welcome.Protocol);
                    if (!c.Ok) throw new ProtocolException("incompatible", c.Reason);
                    Warning = c.Warning;
                    Welcome = welcome;
                    m_state = SessionState.Ready;
                    return;
                }
                switch (type)
                {
                    case "load":
                        if (m_state == SessionState.Running) throw new ProtocolException("unexpected", "\"load\" while run " + m_run.RunId + " is still running");
                        m_run = (LoadMessage)message;
                        m_loaded = false;
                        m_bodyCount = 0;
                        m_nextStep = 0;
                        m_captured = false;
                        m_cancelRequested = false;
                        m_state = SessionState.Running;
                        return;
                    case "cancel":
                        if (m_state == SessionState.Running && ((CancelMessage)message).RunId == m_run.RunId) m_cancelRequested = true;
                        return; // a cancel for a run that already ended is harmless
                    case "bye":
                        m_state = SessionState.Closed;
                        return;
                    case "error":
                    case "ping":
                    case "pong":
                        return;
                    default:
                        throw new ProtocolException("unexpected", "\"" + type + "\" after the handshake");
                }
            }
        }

        /// <summary>Marks the session closed (connection lost); later sends are refused.</summary>
        public void Close()
        {
            lock (m_lock) m_state = SessionState.Closed;
        }

        // Outgoing level messages: each checks the lifecycle (loaded first, contiguous frames, capture
        // once and only if asked, done/error end the run).

        public LoadedMessage Loaded(double dt, List<BodyInfo> bodies)
        {
            lock (m_lock)
            {
                RequireRun();
                if (m_loaded) throw new InvalidOperationException("\"loaded\" twice");
                m_loaded = true;
                m_bodyCount = bodies.Count;
                return new LoadedMessage { RunId = m_run.RunId, Dt = dt, Bodies = bodies };
            }
        }

        public FramesMessage Frames(FrameBatch batch)
        {
            lock (m_lock)
            {
                RequireLoaded();
                if (batch.BodyCount != m_bodyCount) throw new InvalidOperationException("frames for " + batch.BodyCount + " bodies, loaded announced " + m_bodyCount);
                if (batch.FirstStep != m_nextStep) throw new InvalidOperationException("frames start at step " + batch.FirstStep + ", expected " + m_nextStep);
                m_nextStep += batch.StepCount;
                return new FramesMessage
                {
                    RunId = m_run.RunId,
                    FirstStep = batch.FirstStep,
                    StepCount = batch.StepCount,
                    BodyCount = batch.BodyCount,
                    States = batch.States,
                    Alive = batch.Alive,
                };
            }
        }

        public EventsMessage Events(List<SimEvent> events)
        {
            lock (m_lock)
            {
                RequireLoaded();
                return new EventsMessage { RunId = m_run.RunId, Events = events };
            }
        }

        public CaptureMessage Capture(byte[] png, byte[] raw)
        {
            lock (m_lock)
            {
                RequireLoaded();
                if (!m_run.Settings.Capture) throw new InvalidOperationException("the level did not ask for a capture");
                if (m_captured) throw new InvalidOperationException("second capture");
                m_captured = true;
                return new CaptureMessage { RunId = m_run.RunId, Png = png, Raw = raw };
            }
        }

        /// <summary>Ends the run successfully.</summary>
        public DoneMessage Done(RunSummary summary)
        {
            lock (m_lock)
            {
                RequireLoaded();
                if (m_run.Settings.Capture && !m_captured) throw new InvalidOperationException("done without the capture the level asked for");
                DoneMessage done = new DoneMessage { RunId = m_run.RunId, Summary = summary };
                EndRun();
                return done;
            }
        }

        /// <summary>Ends the run with an error (fault "level" when the level itself cannot run).</summary>
        public ErrorMessage Failed(string phase, string fault, string text, string hint)
        {
            lock (m_lock)
            {
                RequireRun();
                ErrorMessage error = new ErrorMessage { RunId = m_run.RunId, LevelId = m_run.LevelId, Phase = phase, Fault = fault, Text = text, Hint = hint };
                EndRun();
                return error;
            }
        }

        /// <summary>The next step the orchestrator expects in `frames`.</summary>
        public long NextStep { get { lock (m_lock) return m_nextStep; } }

        private void EndRun()
        {
            m_run = null;
            m_cancelRequested = false;
            if (m_state == SessionState.Running) m_state = SessionState.Ready;
        }

        private void RequireRun()
        {
            if (m_state != SessionState.Running || m_run == null) throw new InvalidOperationException("no level is running");
        }

        private void RequireLoaded()
        {
            RequireRun();
            if (!m_loaded) throw new InvalidOperationException("send \"loaded\" first");
        }
    }

    /// <summary>A block of consecutive steps (the payload of one `frames` message).</summary>
    public sealed class FrameBatch
    {
        public long FirstStep;
        public long StepCount;
        public long BodyCount;
        public float[] States;
        public byte[] Alive;
    }

    /// <summary>Collects per-step body states into batches of `perBatch` steps.</summary>
    public sealed class FrameBatcher
    {
        private readonly int m_bodyCount;
        private readonly int m_perBatch;
        private long m_firstStep;
        private int m_rows;
        private float[] m_states;
        private byte[] m_alive;

        public FrameBatcher(int bodyCount, int perBatch)
        {
            m_bodyCount = bodyCount;
            m_perBatch = Math.Max(1, perBatch);
            Reset(0);
        }

        /// <summary>Writes body `body`'s state in the current step's row.</summary>
        public void Set(int body, float x, float y, float angle, float vx, float vy, float omega, bool alive)
        {
            int cell = m_rows * m_bodyCount + body;
            int o = cell * 6;
            m_states[o] = x;
            m_states[o + 1] = y;
            m_states[o + 2] = angle;
            m_states[o + 3] = vx;
            m_states[o + 4] = vy;
            m_states[o + 5] = omega;
            m_alive[cell] = alive ? (byte)1 : (byte)0;
        }

        /// <summary>Ends the current step; returns a full batch, or null while the batch fills.</summary>
        public FrameBatch EndStep()
        {
            m_rows++;
            return m_rows >= m_perBatch ? Flush() : null;
        }

        /// <summary>The steps collected so far as a batch (null when there are none).</summary>
        public FrameBatch Flush()
        {
            if (m_rows == 0) return null;
            int cells = m_rows * m_bodyCount;
            float[] states = new float[cells * 6];
            byte[] alive = new byte[cells];
            Array.Copy(m_states, states, states.Length);
            Array.Copy(m_alive, alive, alive.Length);
            FrameBatch batch = new FrameBatch { FirstStep = m_firstStep, StepCount = m_rows, BodyCount = m_bodyCount, States = states, Alive = alive };
            Reset(m_firstStep + m_rows);
            return batch;
        }

        private void Reset(long firstStep)
        {
            m_firstStep = firstStep;
            m_rows = 0;
            m_states = new float[m_perBatch * m_bodyCount * 6];
            m_alive = new byte[m_perBatch * m_bodyCount];
        }
    }
}
