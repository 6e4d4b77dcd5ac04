// One sample of every message type, built in C#. test/bridge/samples.ts builds the same messages in
// TypeScript; the cross-language test checks that both encoders write the same bytes. Edit both files
// together. Floats are written as (float)double so they round the way JavaScript's Float32Array does.

using System;
using System.Collections.Generic;
using System.Linq;
using Sbeval.Bridge;

namespace Sbeval.Bridge.Tests
{
    public static class Samples
    {
        public static List<Message> All()
        {
            float[] states =
            {
                (float)0.5, (float)-3.37995, (float)(Math.PI / 2), (float)0, (float)-0.25, (float)1e-7,
                (float)2.12005, (float)-3.1, (float)0, (float)1.5, (float)0, (float)-2,
            };
            Capabilities caps = new Capabilities { Frames = true, Events = true, Capture = true, CaptureRaw = false, Cancel = true };
            SimulationSettings settings = new SimulationSettings { WindowSteps = 500, Trial = 2, Damage = "contact-point", Capture = true, CaptureRaw = true, FramesPerBatch = 50 };
            return new List<Message>
            {
                new HelloMessage
                {
                    Protocol = Protocol.Version,
                    Token = "tok-\u00C4\u00D6-\uD83D\uDC26",
                    Instance = "unity-0",
                    Engine = new EngineIdentity { Kind = "unity", Version = "2019.4.40f1", Description = "Science Birds (ICE) sbeval plugin 0.1.0" },
                    Capabilities = caps,
                    MaxMessageBytes = 33554432,
                },
                new WelcomeMessage { Protocol = Protocol.Version, SessionId = "s-1", EngineId = "unity-0", HeartbeatMs = 5000, MaxMessageBytes = 65536 },
                new LoadMessage
                {
                    RunId = "r-12",
                    LevelId = "team/L/team_L_1",
                    Xml = "<?xml version=\"1.0\" encoding=\"utf-16\"?>\n<Level width=\"3\">\n</Level>\n",
                    Settings = settings,
                },
                new LoadedMessage
                {
                    RunId = "r-12",
                    Dt = 0.02,
                    Bodies = new List<BodyInfo>
                    {
                        new BodyInfo { Id = 0, Kind = "block", Type = "RectSmall", Material = "wood", Counted = true, X = 2.12005, Y = -3.37995, Angle = 0 },
                        new BodyInfo { Id = 1, Kind = "pig", Type = "BasicSmall", Counted = true, X = -1, Y = 127.5, Angle = 1.5707963705062866 },
                        new BodyInfo { Id = 200, Kind = "platform", Type = "Platform", Counted = false, X = 300, Y = -33, Angle = -0.5 },
                    },
                },
                new FramesMessage { RunId = "r-12", FirstStep = 65535, StepCount = 2, BodyCount = 1, States = states, Alive = new byte[] { 1, 0 } },
                new EventsMessage
                {
                    RunId = "r-12",
                    Events = new List<SimEvent>
                    {
                        SimEvent.Contact(1, 0, -1, 0.123),
                        SimEvent.Contact(128, 3, -2, 5),
                        SimEvent.Damage(256, 3, 5.25, -0.25),
                        SimEvent.Destroyed(65536, 3),
                        SimEvent.Removed(4294967295L, 3, "death"),
                        SimEvent.Removed(40, 4, "out-of-world"),
                        SimEvent.Explosion(41, 5, -129, -32768),
                    },
                },
                new CaptureMessage { RunId = "r-12", Png = new byte[] { 0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a } },
                new CaptureMessage { RunId = "r-13", Png = Enumerable.Repeat((byte)7, 300).ToArray(), Raw = new byte[] { 1, 2, 3 } },
                new DoneMessage { RunId = "r-12", Summary = new RunSummary { Steps = 514, Bodies = 30, Events = 0, ElapsedMs = 4294967296.0 } },
                new ErrorMessage { RunId = "r-12", LevelId = "team/L/team_L_1", Phase = "load", Fault = "level", Text = "Block type \"Foo\" is unknown", Hint = "check the XML" },
                new ErrorMessage { Phase = "protocol", Fault = "engine", Text = new string('x', 31) },
                new CancelMessage { RunId = "r-12" },
                new PingMessage { Nonce = 2147483648L },
                new PongMessage { Nonce = 0 },
                new ByeMessage { Reason = new string('x', 32) },
            };
        }
    }
}
