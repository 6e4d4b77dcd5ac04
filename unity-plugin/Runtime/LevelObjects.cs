// sbeval bridge: the objects of a level XML in file order, and the match between them and the
// objects the game created. Body ids in the protocol are indices in XML order among objects
// (bridge/frames.ts), while ABGameWorld.DecodeLevel creates pigs, then blocks, then platforms, then
// TNT (Assets/Scripts/GameWorld/ABGameWorld.cs). Pure: no UnityEngine.

using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Xml;

namespace Sbeval.Bridge
{
    public sealed class LevelObject
    {
        /// <summary>Index in XML order among objects: the body id.</summary>
        public int Id;
        /// <summary>block, pig, tnt or platform.</summary>
        public string Kind;
        public string Type;
        /// <summary>Blocks only (null otherwise).</summary>
        public string Material;
        public double X;
        public double Y;
        /// <summary>Degrees, counter-clockwise (the XML's unit).</summary>
        public double Rotation;
    }

    public static class LevelObjects
    {
        /// <summary>The objects under &lt;GameObjects&gt;, in file order. Throws FormatException on XML it cannot read.</summary>
        public static List<LevelObject> Parse(string xml)
        {
            List<LevelObject> objects = new List<LevelObject>();
            XmlReaderSettings settings = new XmlReaderSettings { DtdProcessing = DtdProcessing.Prohibit, IgnoreComments = true, IgnoreWhitespace = true };
            try
            {
                using (XmlReader reader = XmlReader.Create(new StringReader(xml), settings))
                {
                    bool inObjects = false;
                    while (reader.Read())
                    {
                        if (reader.NodeType == XmlNodeType.EndElement && reader.LocalName == "GameObjects") inObjects = false;
                        if (reader.NodeType != XmlNodeType.Element) continue;
                        if (reader.LocalName == "GameObjects")
                        {
                            inObjects = !reader.IsEmptyElement;
                            continue;
                        }
                        if (!inObjects) continue;
                        string kind = KindOf(reader.LocalName);
                        if (kind == null) continue;
                        objects.Add(new LevelObject
                        {
                            Id = objects.Count,
                            Kind = kind,
                            Type = reader.GetAttribute("type") ?? "",
                            Material = kind == "block" ? (reader.GetAttribute("material") ?? "") : null,
                            X = Number(reader.GetAttribute("x"), 0),
                            Y = Number(reader.GetAttribute("y"), 0),
                            Rotation = Number(reader.GetAttribute("rotation"), 0),
                        });
                    }
                }
            }
            catch (XmlException e)
            {
                throw new FormatException("level XML cannot be read: " + e.Message, e);
            }
            return objects;
        }

        private static string KindOf(string element)
        {
            switch (element)
            {
                case "Block": return "block";
                case "Pig": return "pig";
                case "TNT": return "tnt";
                case "Platform": return "platform";
                default: return null;
            }
        }

        private static double Number(string text, double fallback)
        {
            if (text == null) return fallback;
            double value;
            if (!double.TryParse(text, NumberStyles.Float, CultureInfo.InvariantCulture, out value)) throw new FormatException("not a number: \"" + text + "\"");
            return value;
        }

        /// <summary>
        /// Body ids for the objects the game created of one kind, in creation order: each created object
        /// takes the next XML object of that kind at the same position (the game's own parser can skip
        /// objects in compact XML, so a plain index would drift). -1 when nothing matches.
        /// </summary>
        public static int[] Match(List<LevelObject> xmlObjects, string kind, IList<double[]> createdPositions)
        {
            // Positions arrive through float32 transforms, and a body may already have moved a little if a
            // physics step ran before it was seen; distinct objects of one kind are further apart than this.
            const double Tolerance = 0.05;
            int[] ids = new int[createdPositions.Count];
            int next = 0;
            List<LevelObject> candidates = xmlObjects.FindAll(o => o.Kind == kind);
            for (int i = 0; i < createdPositions.Count; i++)
            {
                ids[i] = -1;
                double[] p = createdPositions[i];
                for (int j = next; j < candidates.Count; j++)
                {
                    if (Math.Abs(candidates[j].X - p[0]) <= Tolerance && Math.Abs(candidates[j].Y - p[1]) <= Tolerance)
                    {
                        ids[i] = candidates[j].Id;
                        next = j + 1;
                        break;
                    }
                }
            }
            return ids;
        }
    }
}
