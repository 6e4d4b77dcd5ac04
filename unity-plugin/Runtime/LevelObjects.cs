// sbeval bridge: the objects of a level XML in file order, and the match between them and the
// objects the game created. Body ids in the protocol are indices in XML order among objects
// (bridge/frames.ts), while ABGameWorld.DecodeLevel creates pigs, then blocks, then platforms, then
// TNT, each kind in XML order (Assets/Scripts/GameWorld/ABGameWorld.cs). Pure: no UnityEngine.

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
        /// Body ids for the `createdCount` objects the game created of one kind, in creation order: the
        /// i-th created is the i-th of that kind in the XML, because DecodeLevel creates each kind in XML
        /// order. Positions are not compared: objects may overlap, and Box2D pushes overlapping bodies
        /// apart by up to 0.2 per step. Throws LevelMismatchException when the game created a different
        /// number (its loader skips elements of compact XML; an unknown type or material stops
        /// DecodeLevel with an exception).
        /// </summary>
        public static int[] MatchByCreationOrder(List<LevelObject> xmlObjects, string kind, int createdCount)
        {
            List<LevelObject> candidates = xmlObjects.FindAll(o => o.Kind == kind);
            if (candidates.Count != createdCount)
            {
                throw new LevelMismatchException(
                    "the game created " + createdCount + " " + kind + (createdCount == 1 ? "" : "s") + ", the level XML lists " + candidates.Count +
                    " (the game's loader skips elements of XML without whitespace between them; an unknown type or material stops its DecodeLevel: see the editor log)");
            }
            int[] ids = new int[createdCount];
            for (int i = 0; i < createdCount; i++) ids[i] = candidates[i].Id;
            return ids;
        }

        /// <summary>Distance between a created object's position and its XML object's (for a warning: at step 0 they should agree).</summary>
        public static double Offset(LevelObject xml, double x, double y)
        {
            double dx = xml.X - x;
            double dy = xml.Y - y;
            return Math.Sqrt(dx * dx + dy * dy);
        }
    }

    /// <summary>The objects the game created do not correspond to the level XML (a fault of the level, not of the engine).</summary>
    public sealed class LevelMismatchException : Exception
    {
        public LevelMismatchException(string message) : base(message) { }
    }
}
