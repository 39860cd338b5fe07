import MedleyMedia

/// `ingest.page: all`: a PDF becomes one item per page, in page order (pdftoppm's way); any other file stays one item.
/// Its pages are counted through the file's checked open file, as every reader of an item opens it.
enum PageItems {
    /// The most pages one PDF gives, as `ingest.page` allows.
    static let maximum = 100_000

    /// Files as items: each page of a PDF, else the file itself (also a PDF that cannot be read: its journey
    /// fails it with the reason).
    static func items(of files: [IngestedFile]) -> [IngestedFile] {
        files.flatMap { file -> [IngestedFile] in
            guard let count = pageCount(of: file), count >= 1 else { return [file] }
            return (1...min(count, maximum)).map { file.page($0) }
        }
    }

    /// The number of pages of a PDF (poppler's count, through libvips); nil for any other file.
    static func pageCount(of file: IngestedFile) -> Int? {
        guard let opened = try? InputFile.open(file) else { return nil }
        defer { opened.close() }
        guard let format = try? Identify.format(of: opened.file, reading: opened), format == .pdf else { return nil }
        var messages = LibraryMessages()
        return try? Vips.run(collectingInto: &messages) { _ in try VipsImage.open(opened.readPath, access: .sequential).pages }
    }
}
