import Foundation

/// What a job takes, decided here for the three moments that ask: a file's sniffed kind (before it
/// is read: the journey, album mode's grouping, `medley merge`), an item's media type and
/// properties once read (the journey's select step, with `where`), and an unchanged item's
/// stored record (`IncrementalState`).
extension Job {
    /// Whether the job's media types could take a file of this kind.
    func takes(_ kind: MediaKind) -> Bool { ingest.media.contains { $0.selects(kind) } }

    /// Whether the job's media types take an item of this type.
    func takes(_ type: MediaType) -> Bool { ingest.media.contains { $0.selects(mediaType: type) } }

    /// Throws why the job leaves out an item of `type` whose properties are `property`: its media
    /// type, then `where` (not an error: the item is listed as excluded).
    func select(_ type: MediaType, _ property: (String) -> TemplateValue?) throws {
        guard takes(type) else { throw NotSelected.mediaType(type) }
        if let clause = self.where, !clause.matches(property) { throw NotSelected.where }
    }
}
