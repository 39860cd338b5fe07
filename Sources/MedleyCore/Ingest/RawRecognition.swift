import MedleyMedia

/// Camera RAW files: which bytes say RAW on their own, and which files only LibRaw can tell from a TIFF.
///
/// Most RAW formats are TIFF inside (NEF, ARW, DNG, PEF, SRW, 3FR, ERF, IIQ …) and share its first four
/// bytes, so a NEF read as a TIFF gives the small thumbnail libtiff finds first. Such a file is a RAW when
/// its name says a RAW format and LibRaw reads its header; a plain TIFF, whatever its name, stays a TIFF.
/// The formats with signatures of their own (CR2, CR3, CRW, RAF, ORF, RW2, MRW, X3F) are RAW by their bytes.
enum RawRecognition {
    /// The extensions of the RAW formats LibRaw reads (lowercase).
    static let extensions: Set<String> = [
        "cr2", "cr3", "crw", "nef", "nrw", "arw", "sr2", "srf", "dng", "raf", "orf", "rw2", "rwl", "pef",
        "srw", "x3f", "iiq", "mrw", "3fr", "fff", "erf", "kdc", "dcr", "mef", "mos", "mdc", "raw",
    ]

    /// A RAW by its first bytes alone (nil: the bytes do not say RAW).
    static func signature(_ bytes: ContentSniffer.Header) -> SniffedFormat? {
        let tiffLittle = bytes.has([0x49, 0x49, 0x2A, 0x00])
        if tiffLittle && bytes.has([0x43, 0x52, 0x02], at: 8) { return .raw }       // Canon CR2: "CR", version 2
        if bytes.has("ftyp", at: 4) && bytes.has("crx ", at: 8) { return .raw }    // Canon CR3: ISO media, brand "crx "
        if bytes.has("II") && bytes.has("HEAPCCDR", at: 6) { return .raw }         // Canon CRW (CIFF)
        if bytes.has("FUJIFILMCCD-RAW") { return .raw }                           // Fujifilm RAF
        if bytes.has("IIRO") || bytes.has("IIRS") || bytes.has("MMOR") { return .raw }  // Olympus ORF
        if bytes.has([0x49, 0x49, 0x55, 0x00]) { return .raw }                     // Panasonic RW2, Leica RWL
        if bytes.has([0x00, 0x4D, 0x52, 0x4D]) { return .raw }                     // Minolta MRW
        if bytes.has("FOVb") { return .raw }                                       // Sigma X3F
        return nil
    }

    /// A TIFF-shaped file (or one of unknown bytes) named as a RAW, which LibRaw reads as one.
    static func byLibRaw(_ sniffed: SniffedFormat?, ext: String, path: String) -> SniffedFormat? {
        guard sniffed == nil || sniffed == .tiff, extensions.contains(ext), RawFile.recognises(path) else { return nil }
        return .raw
    }
}

extension SniffedFormat {
    /// A camera RAW file (LibRaw reads it): an image, never a movie or a TIFF.
    static let raw = SniffedFormat(kind: .image, format: "raw")
}
