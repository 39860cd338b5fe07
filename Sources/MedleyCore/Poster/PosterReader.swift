import MedleyMedia
import MedleyYAML

/// Reading the `poster:` stage.
extension SchemaReader {
    /// `poster: {at: 1.5}` (seconds) or `poster: {at: "10%"}` (a share of the duration).
    func poster(_ node: YAMLNode) -> PosterStage? {
        guard let fields = mapping(node, keys: ["at"], what: "poster") else { return nil }
        guard let atNode = fields["at"], let text = string(atNode, what: "poster.at") else {
            if fields["at"] == nil { sink.error(node, "poster needs 'at'", suggestion: "add 'at: 1.5' (seconds) or 'at: \"10%\"'") }
            return nil
        }
        guard let time = PosterTime(text) else {
            sink.error(atNode, text.hasSuffix("%") ? "poster.at as a share of the movie is 0% to 100%, not '\(text)'"
                       : "poster.at is a time in seconds (like 1.5) or a share (like \"10%\"), not '\(text)'")
            return nil
        }
        return PosterStage(at: time)
    }
}
