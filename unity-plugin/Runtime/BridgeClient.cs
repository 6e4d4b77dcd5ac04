// sbeval bridge: the engine's connection to the orchestrator. Dials the endpoint, says hello, answers
// pings, watches the heartbeat, hands `load`/`cancel`/`bye` to the host (the game's main thread, or a
// test program) through a queue, sends what the host produces, and reconnects with backoff when the
// connection drops (not after `bye`, not after a refused handshake). No UnityEngine.

using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Tasks;

namespace Sbeval.Bridge
{
    public sealed class BridgeClientOptions
    {
        public Uri Url;
        public string Token;
        /// <summary>The name the launcher gave this process (sent in hello), or null.</summary>
        public string Instance;
        public EngineIdentity Engine;
        public Capabilities Capabilities;
        public int MaxMessageBytes = Protocol.DefaultMaxMessageBytes;
        public int InitialReconnectDelayMs = 250;
        public int MaxReconnectDelayMs = 5000;
        /// <summary>Failed connection attempts in a row before giving up.</summary>
        public int MaxReconnectAttempts = 20;
        public Action<string> Log;
        /// <summary>Called (on a background thread) each time the orchestrator welcomes the engine.</summary>
        public Action Connected;
    }

    public enum ClientStatus { Running, Stopped, Failed }

    /// <summary>An instruction for the host, with the session it arrived on.</summary>
    public sealed class HostCommand
    {
        public EngineSession Session;
        /// <summary>A LoadMessage, CancelMessage or ByeMessage.</summary>
        public Message Message;
    }

    public sealed class BridgeClient
    {
        private sealed class Connection
        {
            public EngineSession Session;
            public WebSocketTransport Transport;
            public readonly ConcurrentQueue<byte[]> Outgoing = new ConcurrentQueue<byte[]>();
            public readonly SemaphoreSlim Signal = new SemaphoreSlim(0);
            public long LastReceivedTicks;
            public int PeerMaxBytes = int.MaxValue;
            public Task Heartbeat;
        }

        private readonly BridgeClientOptions m_options;
        private readonly ConcurrentQueue<HostCommand> m_commands = new ConcurrentQueue<HostCommand>();
        private readonly CancellationTokenSource m_stop = new CancellationTokenSource();
        private volatile Connection m_current;
        private Task m_task;
        private long m_nonce;

        public BridgeClient(BridgeClientOptions options)
        {
            if (options.Url == null) throw new ArgumentException("Url is required");
            if (string.IsNullOrEmpty(options.Token)) throw new ArgumentException("Token is required");
            m_options = options;
            Status = ClientStatus.Running;
        }

        public ClientStatus Status { get; private set; }

        /// <summary>Why the client failed (Status == Failed).</summary>
        public string Failure { get; private set; }

        public int Connections { get; private set; }

        /// <summary>Completes when the client stopped (bye, Stop, or gave up).</summary>
        public Task Completion { get { return m_task; } }

        public void Start()
        {
            m_task = Task.Run(new Func<Task>(RunAsync));
        }

        /// <summary>The next instruction for the host, if any.</summary>
        public bool TryTakeCommand(out HostCommand command)
        {
            return m_commands.TryDequeue(out command);
        }

        /// <summary>Sends a message on the session it belongs to; false when that session is gone.</summary>
        public bool Send(EngineSession session, Message message)
        {
            Connection c = m_current;
            if (c == null || c.Session != session || session.State == SessionState.Closed) return false;
            byte[] bytes = Protocol.Encode(message);
            if (bytes.Length > c.PeerMaxBytes)
            {
                Log("not sending a " + message.Type + " of " + bytes.Length + " bytes: the orchestrator accepts at most " + c.PeerMaxBytes);
                return false;
            }
            c.Outgoing.Enqueue(bytes);
            c.Signal.Release();
            return true;
        }

        /// <summary>Says bye and stops (no reconnect).</summary>
        public void Stop(string reason)
        {
            Connection c = m_current;
            if (c != null) SendRaw(c, new ByeMessage { Reason = reason });
            Thread.Sleep(100); // let the bye go out
            m_stop.Cancel();
            if (c != null) c.Transport.Abort();
            if (Status == ClientStatus.Running) Status = ClientStatus.Stopped;
        }

        private void Log(string line)
        {
            if (m_options.Log != null) m_options.Log(line);
        }

        private async Task RunAsync()
        {
            int failures = 0;
            while (!m_stop.IsCancellationRequested)
            {
                bool welcomed = false;
                string end = await SessionAsync(w => welcomed = w).ConfigureAwait(false);
                if (end == "bye" || m_stop.IsCancellationRequested)
                {
                    if (Status == ClientStatus.Running) Status = ClientStatus.Stopped;
                    return;
                }
                if (end.StartsWith("refused", StringComparison.Ordinal))
                {
                    Status = ClientStatus.Failed;
                    Failure = end;
                    return;
                }
                failures = welcomed ? 1 : failures + 1;
                if (failures >= m_options.MaxReconnectAttempts)
                {
                    Status = ClientStatus.Failed;
                    Failure = "cannot reach the orchestrator at " + m_options.Url + " (" + failures + " attempts; last: " + end + ")";
                    return;
                }
                int delay = (int)Math.Min(m_options.MaxReconnectDelayMs, m_options.InitialReconnectDelayMs * Math.Pow(2, failures - 1));
                Log("connection ended (" + end + "); reconnecting in " + delay + " ms");
                try
                {
                    await Task.Delay(delay, m_stop.Token).ConfigureAwait(false);
                }
                catch (OperationCanceledException)
                {
                    return;
                }
            }
        }

        /// <summary>One connection; returns "bye", "refused: ..." or a description of the loss.</summary>
        private async Task<string> SessionAsync(Action<bool> setWelcomed)
        {
            WebSocketTransport transport;
            try
            {
                transport = await WebSocketTransport.ConnectAsync(m_options.Url, TimeSpan.FromSeconds(10), m_stop.Token, Log).ConfigureAwait(false);
            }
            catch (Exception e)
            {
                return "connect failed: " + e.Message;
            }
            Connections++;
            Connection c = new Connection
            {
                Session = new EngineSession(m_options.Token, m_options.Instance, m_options.Engine, m_options.Capabilities, m_options.MaxMessageBytes),
                Transport = transport,
                LastReceivedTicks = DateTime.UtcNow.Ticks,
            };
            m_current = c;
            CancellationTokenSource connectionCts = CancellationTokenSource.CreateLinkedTokenSource(m_stop.Token);
            Task sender = SendLoopAsync(c, connectionCts.Token);
            string end = null;
            bool bye = false;
            bool refused = false;
            try
            {
                SendRaw(c, c.Session.Hello());
                while (end == null)
                {
                    byte[] data = await transport.ReceiveAsync(m_options.MaxMessageBytes, connectionCts.Token).ConfigureAwait(false);
                    if (data == null)
                    {
                        end = "closed by the orchestrator (code " + transport.CloseCode + (string.IsNullOrEmpty(transport.CloseReason) ? "" : ": " + transport.CloseReason) + ")";
                        int code = transport.CloseCode ?? 0;
                        if (code == Protocol.CloseBadToken || code == Protocol.CloseIncompatible) refused = true;
                        break;
                    }
                    Interlocked.Exchange(ref c.LastReceivedTicks, DateTime.UtcNow.Ticks);
                    SessionState before = c.Session.State;
                    Message message = Protocol.Decode(data, Side.Orchestrator, m_options.MaxMessageBytes);
                    c.Session.Receive(message);
                    switch (message.Type)
                    {
                        case "ping":
                            SendRaw(c, new PongMessage { Nonce = ((PingMessage)message).Nonce });
                            break;
                        case "welcome":
                            WelcomeMessage welcome = (WelcomeMessage)message;
                            c.PeerMaxBytes = (int)Math.Min(int.MaxValue, welcome.MaxMessageBytes);
                            setWelcomed(true);
                            Log("connected to " + m_options.Url + " as " + welcome.EngineId + (c.Session.Warning != null ? " (" + c.Session.Warning + ")" : ""));
                            if (m_options.Connected != null) m_options.Connected();
                            c.Heartbeat = HeartbeatLoopAsync(c, (int)welcome.HeartbeatMs, connectionCts.Token);
                            break;
                        case "load":
                        case "cancel":
                            m_commands.Enqueue(new HostCommand { Session = c.Session, Message = message });
                            break;
                        case "bye":
                            bye = true;
                            end = "bye";
                            Log("orchestrator said bye: " + ((ByeMessage)message).Reason);
                            m_commands.Enqueue(new HostCommand { Session = c.Session, Message = message });
                            break;
                        case "error":
                            ErrorMessage error = (ErrorMessage)message;
                            if (before == SessionState.HelloSent) refused = true;
                            Log("orchestrator reported: " + error.Text + (error.Hint != null ? " (" + error.Hint + ")" : ""));
                            break;
                    }
                }
            }
            catch (ProtocolException e)
            {
                // The orchestrator broke the protocol: say so, close with the code.
                SendRaw(c, new ErrorMessage { Phase = "protocol", Fault = "engine", Text = e.Message });
                await Task.Delay(50).ConfigureAwait(false);
                await transport.CloseAsync(e.CloseCode, e.Message).ConfigureAwait(false);
                end = (e.Code == "incompatible" ? "refused: " : "") + e.Message;
            }
            catch (OperationCanceledException)
            {
                end = "stopped";
            }
            catch (Exception e)
            {
                end = "connection lost: " + e.Message;
            }
            finally
            {
                c.Session.Close();
                connectionCts.Cancel();
                await sender.ConfigureAwait(false);
                if (bye) await transport.CloseAsync(Protocol.CloseNormal, "bye").ConfigureAwait(false);
                transport.Release();
                if (m_current == c) m_current = null;
            }
            if (bye) return "bye";
            if (refused) return end.StartsWith("refused", StringComparison.Ordinal) ? end : "refused: " + end;
            return end;
        }

        private void SendRaw(Connection c, Message message)
        {
            c.Outgoing.Enqueue(Protocol.Encode(message));
            c.Signal.Release();
        }

        private async Task SendLoopAsync(Connection c, CancellationToken cancel)
        {
            try
            {
                while (true)
                {
                    await c.Signal.WaitAsync(cancel).ConfigureAwait(false);
                    byte[] bytes;
                    while (c.Outgoing.TryDequeue(out bytes)) await c.Transport.SendAsync(bytes, cancel).ConfigureAwait(false);
                }
            }
            catch (OperationCanceledException)
            {
                // connection over
            }
            catch (Exception e)
            {
                Log("send failed: " + e.Message);
                c.Transport.Abort();
            }
        }

        /// <summary>Pings every `intervalMs`; a silent orchestrator (6 intervals, at least 30 s) is dropped.</summary>
        private async Task HeartbeatLoopAsync(Connection c, int intervalMs, CancellationToken cancel)
        {
            long timeoutTicks = TimeSpan.FromMilliseconds(Math.Max(intervalMs * 6.0, 30000.0)).Ticks;
            try
            {
                while (!cancel.IsCancellationRequested)
                {
                    await Task.Delay(intervalMs, cancel).ConfigureAwait(false);
                    long silent = DateTime.UtcNow.Ticks - Interlocked.Read(ref c.LastReceivedTicks);
                    if (silent > timeoutTicks)
                    {
                        Log("no message from the orchestrator for " + TimeSpan.FromTicks(silent).TotalSeconds.ToString("0.0") + " s; dropping the connection");
                        c.Transport.Abort();
                        return;
                    }
                    long nonce = Interlocked.Increment(ref m_nonce) % 0x7fffffff;
                    SendRaw(c, new PingMessage { Nonce = nonce });
                }
            }
            catch (OperationCanceledException)
            {
                // connection over
            }
        }
    }
}
