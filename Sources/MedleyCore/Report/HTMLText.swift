/// Text made safe inside HTML and SVG: the five characters markup gives meaning to, as entities.
/// Public so that `medley bench` (its own module) draws its chart through the same escaping.
public enum HTMLText {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by their entities.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.count)
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}
