import MedleyMedia
import MedleyTags

/// An ingested file once it is known to be media the job may want.
struct Item {
    /// The file as the enumerator listed it (and `InputFile` checked it).
    let file: IngestedFile
    /// What decoders open: the item's checked open file (`InputFile.readPath`), never `file.path`.
    let source: String
    /// Its kind and format, from its bytes.
    let sniffed: SniffedFormat
    /// The XXH3 hash of its bytes.
    let persistentID: UInt64
}

/// An item read far enough for `where` and `tag` to judge it: its properties, and what its
/// output step reads next.
struct OpenedItem {
    /// What each kind's output step continues from.
    enum Content {
        case image(header: VipsImage, messages: LibraryMessages)
        case audio(reader: AudioSource, tags: MediaTags)
        case movie(MovieInfo)
    }

    /// What the output step reads next.
    var content: Content
    /// `image`, `movie`, or the audio's `music`, `podcast` or `audioBook`.
    let mediaType: MediaType
    /// Its properties: as read, then as `tag` leaves them.
    var properties: [(name: String, value: TemplateValue)]
    /// What reading it could not take (tags that cannot be read, when the job does not use them).
    var warnings: [String] = []

    /// A property by name, as templates read it.
    subscript(name: String) -> TemplateValue? { properties.first { $0.name == name }?.value }
}
