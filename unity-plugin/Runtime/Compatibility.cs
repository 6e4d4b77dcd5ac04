// sbeval bridge: the protocol compatibility rule (bridge/PROTOCOL.md §8), the twin of
// checkCompatibility in bridge/protocol.ts. Both run the same table:
// test/bridge/fixtures/compatibility.json.

using System.Text.RegularExpressions;

namespace Sbeval.Bridge
{
    public sealed class CompatibilityResult
    {
        public bool Ok;
        /// <summary>Set when compatible but the minor versions differ.</summary>
        public string Warning;
        /// <summary>Set when incompatible.</summary>
        public string Reason;
    }

    public static class Compatibility
    {
        private static readonly Regex Semver = new Regex(
            @"^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$",
            RegexOptions.CultureInvariant);

        /// <summary>
        /// Majors must match; on 0.x the minors must match too; a different minor on 1.x+ works with a
        /// warning; patch, pre-release and build never matter; anything else is incompatible.
        /// </summary>
        public static CompatibilityResult Check(string ours, string theirs)
        {
            Match a = Semver.Match(ours ?? "");
            Match b = Semver.Match(theirs ?? "");
            if (!a.Success) return Fail("our protocol version \"" + ours + "\" is not a semantic version");
            if (!b.Success) return Fail("peer protocol version \"" + theirs + "\" is not a semantic version");
            string aMajor = a.Groups[1].Value, aMinor = a.Groups[2].Value;
            string bMajor = b.Groups[1].Value, bMinor = b.Groups[2].Value;
            if (aMajor != bMajor) return Fail("protocol major versions differ (ours " + ours + ", peer " + theirs + ")");
            if (aMajor == "0" && aMinor != bMinor) return Fail("protocol 0.x minor versions differ (ours " + ours + ", peer " + theirs + ")");
            if (aMinor != bMinor)
            {
                return new CompatibilityResult
                {
                    Ok = true,
                    Warning = "protocol minor versions differ (ours " + ours + ", peer " + theirs + "); features are limited to announced capabilities",
                };
            }
            return new CompatibilityResult { Ok = true };
        }

        private static CompatibilityResult Fail(string reason)
        {
            return new CompatibilityResult { Ok = false, Reason = reason };
        }
    }
}
