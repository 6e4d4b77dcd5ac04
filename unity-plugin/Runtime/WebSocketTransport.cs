// sbeval bridge: whole binary messages over System.Net.WebSockets.ClientWebSocket (available in
// Unity 2019.4's .NET 4.x profile and in Mono). No UnityEngine.
// Older Mono implementations throw NotImplementedException from ClientWebSocket.Abort(): every abort
// goes through Abort() here, which then closes the socket with Dispose() instead, so a shutdown or a
// heartbeat drop still ends the connection (and the editor still exits).

using System;
using System.IO;
using System.Net.WebSockets;
using System.Threading;
using System.Threading.Tasks;

namespace Sbeval.Bridge
{
    public sealed class WebSocketTransport : IDisposable
    {
        /// <summary>
        /// How a socket is aborted: ClientWebSocket.Abort(). Replaced only by the test double's stand-in
        /// editor, which models a Mono whose Abort() throws NotImplementedException.
        /// </summary>
        public static Action<WebSocket> AbortSocket = ws => ws.Abort();

        private readonly ClientWebSocket m_ws;
        private readonly SemaphoreSlim m_sendLock = new SemaphoreSlim(1, 1);
        private readonly Action<string> m_log;
        private int m_fallbacks;

        private WebSocketTransport(ClientWebSocket ws, Action<string> log)
        {
            m_ws = ws;
            m_log = log;
        }

        public static async Task<WebSocketTransport> ConnectAsync(Uri url, TimeSpan timeout, CancellationToken cancel, Action<string> log)
        {
            ClientWebSocket ws = new ClientWebSocket();
            ws.Options.KeepAliveInterval = TimeSpan.Zero; // the protocol has its own heartbeat
            using (CancellationTokenSource limit = CancellationTokenSource.CreateLinkedTokenSource(cancel))
            {
                limit.CancelAfter(timeout);
                try
                {
                    await ws.ConnectAsync(url, limit.Token).ConfigureAwait(false);
                }
                catch
                {
                    ws.Dispose();
                    throw;
                }
            }
            return new WebSocketTransport(ws, log);
        }

        public bool IsOpen { get { return m_ws.State == WebSocketState.Open; } }

        /// <summary>The close code the peer sent (null while open or when the connection just broke).</summary>
        public int? CloseCode { get { return m_ws.CloseStatus.HasValue ? (int?)(int)m_ws.CloseStatus.Value : null; } }

        public string CloseReason { get { return m_ws.CloseStatusDescription; } }

        public async Task SendAsync(byte[] data, CancellationToken cancel)
        {
            // ClientWebSocket allows one send at a time.
            await m_sendLock.WaitAsync(cancel).ConfigureAwait(false);
            try
            {
                await m_ws.SendAsync(new ArraySegment<byte>(data), WebSocketMessageType.Binary, true, cancel).ConfigureAwait(false);
            }
            finally
            {
                m_sendLock.Release();
            }
        }

        /// <summary>The next whole message; null when the peer closed. Text frames and oversize messages are protocol errors.</summary>
        public async Task<byte[]> ReceiveAsync(int maxBytes, CancellationToken cancel)
        {
            byte[] chunk = new byte[64 * 1024];
            using (MemoryStream message = new MemoryStream())
            {
                while (true)
                {
                    WebSocketReceiveResult result = await m_ws.ReceiveAsync(new ArraySegment<byte>(chunk), cancel).ConfigureAwait(false);
                    if (result.MessageType == WebSocketMessageType.Close) return null;
                    if (result.MessageType == WebSocketMessageType.Text)
                    {
                        throw new ProtocolException("malformed", "text frames are not part of the protocol (messages are binary msgpack)");
                    }
                    if (message.Length + result.Count > maxBytes)
                    {
                        throw new ProtocolException("too-large", "message larger than the limit of " + maxBytes + " bytes");
                    }
                    message.Write(chunk, 0, result.Count);
                    if (result.EndOfMessage) return message.ToArray();
                }
            }
        }

        /// <summary>A normal close with a code and reason (at most 123 bytes of UTF-8, as WebSocket requires).</summary>
        public async Task CloseAsync(int code, string reason)
        {
            try
            {
                using (CancellationTokenSource limit = new CancellationTokenSource(2000))
                {
                    if (m_ws.State == WebSocketState.Open || m_ws.State == WebSocketState.CloseReceived)
                    {
                        await m_ws.CloseOutputAsync((WebSocketCloseStatus)code, Truncate(reason), limit.Token).ConfigureAwait(false);
                    }
                }
            }
            catch (Exception)
            {
                Abort();
            }
        }

        /// <summary>Ends the connection now; a ClientWebSocket without Abort() is closed by Dispose().</summary>
        public void Abort()
        {
            try
            {
                AbortSocket(m_ws);
            }
            catch (Exception e)
            {
                if (Interlocked.Increment(ref m_fallbacks) == 1 && m_log != null)
                {
                    m_log("ClientWebSocket.Abort() threw " + e.GetType().Name + "; closed the socket with Dispose() instead");
                }
                Dispose();
            }
        }

        /// <summary>The end of a connection: aborted (whatever the close handshake left open), then released.</summary>
        public void Release()
        {
            Abort();
            Dispose();
        }

        public void Dispose()
        {
            try
            {
                m_ws.Dispose();
            }
            catch (Exception e)
            {
                if (m_log != null) m_log("closing the socket failed: " + e.GetType().Name + ": " + e.Message);
            }
        }

        private static string Truncate(string text)
        {
            string s = text ?? "";
            while (System.Text.Encoding.UTF8.GetByteCount(s) > 123) s = s.Substring(0, s.Length - 1);
            return s;
        }
    }
}
