import MedleyYAML

extension TranscodeSettings {
    /// `trim:` and `fade:`.
    static func readTrimAndFade(_ fields: TranscodeFields, into settings: inout TranscodeSettings) {
    }
}
