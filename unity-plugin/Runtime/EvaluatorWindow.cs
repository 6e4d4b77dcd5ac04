// sbeval bridge: the evaluator's timing in physics steps, the C# copy of bridge/window.ts (the one
// definition; test/bridge/unity-double.test.ts checks that both give the same numbers). Steps count
// from the level's creation: step 0 is the bodies as ABGameWorld.DecodeLevel made them, step k the
// state after k fixed steps of 0.02 s.
// - Stability (BaseStabilityEvaluator.IE_StableCheck): start positions on step 1 (the first
//   end-of-frame after the scene load, whose frame already ran one physics step), last positions on
//   steps 2 … 1+N and 3+N, N = iterations of `while (t <= duration)` with float t += 0.02f
//   (500 for 10 s), so the window ends on step 503.
// - Image (BaseSimilarityEvaluator.IE_TakeScreenshots, its own load of the level): structure bound on
//   step 1 + 500 = 501 (WaitForSeconds(10)), `_raw` on 507, image on 514 (7 + 7 frames).
// All of it at one physics step per frame (Maximum Allowed Timestep 0.02 = Fixed Timestep) — an
// assumption about Unity, like the load timing above, that the timing ruler checks (docs/unity.md).
// No UnityEngine.

using System;

namespace Sbeval.Bridge
{
    public sealed class EvaluatorWindow
    {
        /// <summary>Fixed Timestep (TimeManager.asset).</summary>
        public const float Dt = 0.02f;
        /// <summary>`duration: 10` and `stayDuration: 10`, in steps.</summary>
        public const long DurationSteps = 500;
        /// <summary>Physics steps the bodies have had when the first end-of-frame after the load reads them.</summary>
        public const long LoadSettleSteps = 1;
        /// <summary>`for (int j = 0; j &lt; 7; j++) yield return wff;`, twice.</summary>
        public const long CaptureFrameWait = 7;

        public long Duration { get; private set; }
        public long StartStep { get; private set; }
        public long LoopIterations { get; private set; }
        public long EndStep { get; private set; }
        public long BoundStep { get; private set; }
        public long RawStep { get; private set; }
        public long ImageStep { get; private set; }

        /// <summary>The window for a duration of `durationSteps` physics steps (SimulationSettings.WindowSteps).</summary>
        public static EvaluatorWindow For(long durationSteps)
        {
            if (durationSteps < 0) throw new ArgumentOutOfRangeException("durationSteps", "the window duration must not be negative");
            long iterations = Iterations((float)(durationSteps * 0.02));
            long bound = LoadSettleSteps + durationSteps;
            return new EvaluatorWindow
            {
                Duration = durationSteps,
                StartStep = LoadSettleSteps,
                LoopIterations = iterations,
                EndStep = LoadSettleSteps + iterations + 2,
                BoundStep = bound,
                RawStep = bound + CaptureFrameWait - 1,
                ImageStep = bound + 2 * CaptureFrameWait - 1,
            };
        }

        /// <summary>Times `while (t &lt;= duration) { …; t += Dt; }` runs with float t.</summary>
        public static long Iterations(float duration)
        {
            float t = 0f;
            long n = 0;
            while (t <= duration)
            {
                n++;
                float next = (float)(t + Dt);
                if (next == t) throw new ArgumentOutOfRangeException("duration", "a float clock stops advancing at " + t + " s");
                t = next;
            }
            return n;
        }

        /// <summary>The last step of a trial's frame stream: the window's end, or the image step when a capture was asked for.</summary>
        public long StepsToSimulate(bool capture)
        {
            return capture ? Math.Max(EndStep, ImageStep) : EndStep;
        }
    }
}
