import CGexiv2
import Foundation
import MedleySystem

/// An image's EXIF, IPTC and XMP through exiv2 (gexiv2, its C API): read from a file or from bytes,
/// changed, and saved into a file, or its XMP written as a sidecar's text. The one metadata
/// adapter: nothing else imports CGexiv2.
///
/// Values are read as they are stored, the way `exiftool -n` gives them (``MetadataValue``): no
/// display strings. exiv2's XMP toolkit is not thread-safe (its namespace registry is shared), so
/// every call into it holds one lock; a metadata read is small next to a decode.
public final class ImageMetadata {
    private let handle: UnsafeMutablePointer<GExiv2Metadata>
    /// The file or bytes it was read from, for messages.
    public let origin: String
    /// exiv2's warnings while it was read ("Directory Nikon3 with 26880 entries considered invalid").
    public private(set) var warnings: [String] = []

    private init(handle: UnsafeMutablePointer<GExiv2Metadata>, origin: String) {
        self.handle = handle
        self.origin = origin
    }

    deinit {
        Self.locked { g_object_unref(UnsafeMutableRawPointer(handle)) }
    }

    /// The metadata of the image (or `.xmp` sidecar) at `path`.
    public static func open(path: String) throws -> ImageMetadata {
        try open(origin: path, operation: "read metadata") { handle, error in
            gexiv2_metadata_open_path(handle, path, &error)
        }
    }

    /// The metadata of an image held in memory (`origin` names it in messages).
    public static func open(bytes: [UInt8], origin: String = "bytes") throws -> ImageMetadata {
        guard let count = Int(exactly: bytes.count), count > 0 else {
            throw MediaError(.exiv2, "read metadata", "\(origin): no bytes to read metadata from", cause: .corruptData)
        }
        return try open(origin: origin, operation: "read metadata") { handle, error in
            bytes.withUnsafeBufferPointer { gexiv2_metadata_open_buf(handle, $0.baseAddress, glong(count), &error) }
        }
    }

    /// The metadata of an empty JPEG: where EXIF and XMP are put together for a file exiv2 cannot
    /// write itself (a JPEG XL container's boxes), then taken out as `exifBlock()` and `xmpPacket()`.
    public static func scratch() throws -> ImageMetadata {
        try open(bytes: smallestJPEG, origin: "metadata being assembled")
    }

    private static func open(origin: String, operation: String,
                             _ body: (UnsafeMutablePointer<GExiv2Metadata>, inout UnsafeMutablePointer<GError>?) -> gboolean) throws -> ImageMetadata {
        try locked {
            guard let handle = gexiv2_metadata_new() else {
                throw MediaError(.exiv2, operation, "gexiv2 cannot allocate its metadata object")
            }
            var error: UnsafeMutablePointer<GError>?
            let ok = body(handle, &error)
            let warnings = Log.take()
            guard ok != 0 else {
                let failure = Self.error(error, operation, path: origin, warnings: warnings)
                releaseAfterFailedOpen(handle)
                throw failure
            }
            let metadata = ImageMetadata(handle: handle, origin: origin)
            metadata.warnings = warnings
            return metadata
        }
    }

    /// Releases an object whose open failed (under the lock). gexiv2 before 0.14.2 (Debian 12 has
    /// 0.14.0) frees the MIME type and the preview manager of an open that fails after exiv2 has read
    /// the file (a preview exiv2 cannot parse: fuzzing found a 14 KB TIFF) without clearing them, and
    /// its finalizer frees both again: a double free that aborts the whole process (fixed upstream by
    /// commit 5617111, "Zero fields after g_free"). Opening the smallest JPEG on the same object sets
    /// both afresh first, so the release frees each once on every version; should even that fail, the
    /// object is left unreleased, a leak of one object instead of an abort.
    private static func releaseAfterFailedOpen(_ handle: UnsafeMutablePointer<GExiv2Metadata>) {
        var error: UnsafeMutablePointer<GError>?
        let reopened = smallestJPEG.withUnsafeBufferPointer {
            gexiv2_metadata_open_buf(handle, $0.baseAddress, glong($0.count), &error)
        }
        if let error { g_error_free(error) }
        _ = Log.take()
        if reopened != 0 { g_object_unref(UnsafeMutableRawPointer(handle)) }
    }

    /// A JPEG of nothing but its start and end markers.
    private static let smallestJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xD9]

    // MARK: reading

    /// Whether the format can hold each family (a WebP holds no IPTC in exiv2's view, a sidecar only XMP).
    public var supports: (exif: Bool, iptc: Bool, xmp: Bool) {
        Self.locked {
            (gexiv2_metadata_get_supports_exif(handle) != 0, gexiv2_metadata_get_supports_iptc(handle) != 0,
             gexiv2_metadata_get_supports_xmp(handle) != 0)
        }
    }

    /// The MIME type exiv2 recognised ("image/jpeg", "application/rdf+xml" for a sidecar).
    public var mimeType: String {
        Self.locked { gexiv2_metadata_get_mime_type(handle).map { String(cString: $0) } ?? "" }
    }

    /// Every tag's key, EXIF then IPTC then XMP, each as exiv2 lists them ("Exif.Photo.FNumber",
    /// "Iptc.Application2.Keywords", "Xmp.dc.subject").
    public var keys: [String] {
        Self.locked { listedKeys() }
    }

    /// ``keys``, under the lock.
    private func listedKeys() -> [String] {
        var keys: [String] = []
        var seen = Set<String>()
        for list in [gexiv2_metadata_get_exif_tags(handle), gexiv2_metadata_get_iptc_tags(handle), gexiv2_metadata_get_xmp_tags(handle)] {
            for key in Self.strings(list) where seen.insert(key).inserted { keys.append(key) }
        }
        return keys
    }

    /// Every tag with its value (``MetadataValue``), in the order of ``keys``; tags whose value
    /// exiv2 cannot give are left out. One hold of the lock, and no presence check of keys exiv2
    /// has just listed (each check is a walk of the file's tags).
    public var tags: [MetadataTag] {
        Self.locked {
            listedKeys().compactMap { key in rawValue(key, listed: true).map { MetadataTag(key: key, raw: $0) } }
        }
    }

    /// One tag's value, or nil when the file does not hold it.
    public func value(_ key: String) -> MetadataValue? {
        Self.locked { rawValue(key) }.map { MetadataTag(key: key, raw: $0).value }
    }

    /// Whether the file holds the tag.
    public func has(_ key: String) -> Bool {
        Self.locked {
            var error: UnsafeMutablePointer<GError>?
            let found = gexiv2_metadata_try_has_tag(handle, key, &error) != 0
            if let error { g_error_free(error) }
            return found
        }
    }

    /// The stored value's text and its type (under the lock); `listed`: the key is one exiv2 listed.
    private func rawValue(_ key: String, listed: Bool = false) -> MetadataTag.Raw? {
        if !listed {
            var hasError: UnsafeMutablePointer<GError>?
            let present = gexiv2_metadata_try_has_tag(handle, key, &hasError) != 0
            if let hasError { g_error_free(hasError) }
            guard present else { return nil }
        }
        var error: UnsafeMutablePointer<GError>?
        let typeName = gexiv2_metadata_try_get_tag_type(key, &error).map { String(cString: $0) } ?? ""
        if let error { g_error_free(error) }
        let isList = (key.hasPrefix("Xmp.") || key.hasPrefix("Iptc.")) && typeName != "LangAlt"
        if isList {
            var listError: UnsafeMutablePointer<GError>?
            let list = gexiv2_metadata_try_get_tag_multiple(handle, key, &listError)
            if let listError { g_error_free(listError) }
            if let list {
                let values = Self.strings(list)
                if !values.isEmpty || typeName.hasPrefix("Xmp") { return MetadataTag.Raw(type: typeName, text: values.joined(separator: ", "), list: values) }
            }
        }
        var textError: UnsafeMutablePointer<GError>?
        let text = gexiv2_metadata_try_get_tag_string(handle, key, &textError)
        if let textError { g_error_free(textError) }
        guard let text else { return nil }
        defer { g_free(text) }
        return MetadataTag.Raw(type: typeName, text: Self.text(text), list: nil)
    }

    /// The EXIF as one TIFF structure (little-endian, "II*", IFD0 with its EXIF and GPS IFDs), as a
    /// JPEG XL `Exif` box holds it; nil when there is no EXIF.
    public func exifBlock() throws -> [UInt8]? {
        try Self.locked {
            guard gexiv2_metadata_has_exif(handle) != 0 else { return nil }
            var error: UnsafeMutablePointer<GError>?
            guard let bytes = gexiv2_metadata_get_exif_data(handle, GEXIV2_BYTE_ORDER_LITTLE, &error) else {
                throw Self.error(error, "write EXIF", path: origin, warnings: Log.take())
            }
            defer { g_bytes_unref(bytes) }
            var count: gsize = 0
            guard let data = g_bytes_get_data(bytes, &count), count > 0 else { return nil }
            return Array(UnsafeRawBufferPointer(start: data, count: Int(count)))
        }
    }

    /// Whether there is any XMP.
    public var hasXMP: Bool {
        Self.locked { gexiv2_metadata_has_xmp(handle) != 0 }
    }

    /// The XMP packet as exiv2 would write it: the text of a sidecar.
    public func xmpPacket() throws -> String {
        try Self.locked {
            var error: UnsafeMutablePointer<GError>?
            guard let packet = gexiv2_metadata_try_generate_xmp_packet(handle, GExiv2XmpFormatFlags(rawValue: 0), 0, &error) else {
                if error == nil {
                    // No XMP at all: an empty packet, as exiv2 writes a sidecar without properties.
                    return "<?xpacket begin=\"\u{feff}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\"/>\n</x:xmpmeta>\n<?xpacket end=\"w\"?>\n"
                }
                throw Self.error(error, "write XMP", path: origin, warnings: Log.take())
            }
            defer { g_free(packet) }
            return Self.text(packet)
        }
    }

    // MARK: writing

    /// Sets a tag from text as exiv2 reads that type ("28/10" for a rational, "2024:05:01 10:00:00"
    /// for an EXIF date, plain text for XMP and IPTC).
    public func set(_ key: String, text: String) throws {
        try Self.locked {
            var error: UnsafeMutablePointer<GError>?
            if gexiv2_metadata_try_set_tag_string(handle, key, text, &error) == 0 || error != nil {
                throw Self.error(error, "set \(key)", path: origin, warnings: Log.take())
            }
        }
    }

    /// Sets a several-valued tag (an XMP bag or sequence, IPTC Keywords) to `values`, in order.
    public func set(_ key: String, values: [String]) throws {
        try Self.locked {
            // A NULL-terminated array of C strings that live for the call.
            let copies = values.map { strdup($0) }
            defer { copies.forEach { free($0) } }
            var pointers: [UnsafePointer<gchar>?] = copies.map { $0.map { UnsafePointer($0) } }
            pointers.append(nil)
            var error: UnsafeMutablePointer<GError>?
            let ok = pointers.withUnsafeMutableBufferPointer { buffer in
                gexiv2_metadata_try_set_tag_multiple(handle, key, buffer.baseAddress, &error)
            }
            if ok == 0 || error != nil { throw Self.error(error, "set \(key)", path: origin, warnings: Log.take()) }
        }
    }

    /// Creates an empty XMP array (`XmpBag`, `XmpSeq` or `XmpAlt`, by exiv2's type name) to hold
    /// structures ("Xmp.xmpMM.History" before "Xmp.xmpMM.History[1]/stEvt:action").
    public func setArray(_ key: String, type: String) throws {
        let structure: GExiv2StructureType
        switch type {
        case "XmpBag": structure = GEXIV2_STRUCTURE_XA_BAG
        case "XmpAlt": structure = GEXIV2_STRUCTURE_XA_ALT
        default: structure = GEXIV2_STRUCTURE_XA_SEQ
        }
        try Self.locked {
            var error: UnsafeMutablePointer<GError>?
            if gexiv2_metadata_try_set_xmp_tag_struct(handle, key, structure, &error) == 0 || error != nil {
                throw Self.error(error, "set \(key)", path: origin, warnings: Log.take())
            }
        }
    }

    /// exiv2's type name of a tag ("XmpSeq", "Rational"), by its key alone.
    public static func typeName(_ key: String) -> String {
        locked {
            var error: UnsafeMutablePointer<GError>?
            let name = gexiv2_metadata_try_get_tag_type(key, &error).map { String(cString: $0) } ?? ""
            if let error { g_error_free(error) }
            return name
        }
    }

    /// Removes a tag (every value of it); nothing when absent.
    public func clear(_ key: String) {
        Self.locked {
            var error: UnsafeMutablePointer<GError>?
            _ = gexiv2_metadata_try_clear_tag(handle, key, &error)
            if let error { g_error_free(error) }
        }
    }

    /// Removes every tag of a family.
    public func clear(_ family: MetadataFamily) {
        Self.locked {
            switch family {
            case .exif: gexiv2_metadata_clear_exif(handle)
            case .iptc: gexiv2_metadata_clear_iptc(handle)
            case .xmp: gexiv2_metadata_clear_xmp(handle)
            }
        }
    }

    /// Removes the EXIF thumbnail (IFD1 and its JPEG).
    public func eraseThumbnail() {
        Self.locked {
            var error: UnsafeMutablePointer<GError>?
            gexiv2_metadata_try_erase_exif_thumbnail(handle, &error)
            if let error { g_error_free(error) }
        }
    }

    /// Writes the metadata into the image file at `path` (its pixels untouched): the file Medley is
    /// about to place (a temporary), never a source.
    public func save(to path: String) throws {
        try Self.locked {
            var error: UnsafeMutablePointer<GError>?
            if gexiv2_metadata_save_file(handle, path, &error) == 0 {
                throw Self.error(error, "write metadata", path: path, warnings: Log.take())
            }
            warnings += Log.take()
        }
    }

    /// The image `bytes` (the same image this metadata was read from, or another of its format)
    /// with this metadata written into them, in memory: exiv2 reads the image through a stream
    /// over the bytes and writes the whole new file back through it.
    public func saved(into bytes: [UInt8]) throws -> [UInt8] {
        let stream = MemoryStream(bytes)
        var callbacks = ManagedStreamCallbacks()
        callbacks.handle = Unmanaged.passUnretained(stream).toOpaque()
        callbacks.CanSeek = { _ in 1 }
        callbacks.CanRead = { _ in 1 }
        callbacks.CanWrite = { _ in 1 }
        callbacks.Length = { handle in gint64(MemoryStream.from(handle)?.bytes.count ?? 0) }
        callbacks.Position = { handle in gint64(MemoryStream.from(handle)?.position ?? 0) }
        callbacks.Read = { handle, buffer, offset, count in
            MemoryStream.from(handle)?.read(into: buffer, offset: Int(offset), count: Int(count)) ?? 0
        }
        callbacks.Write = { handle, buffer, offset, count in
            MemoryStream.from(handle)?.write(from: buffer, offset: Int(offset), count: Int(count))
        }
        callbacks.Seek = { handle, offset, origin in
            MemoryStream.from(handle)?.seek(Int(clamping: offset), origin: origin)
        }
        callbacks.Flush = { _ in }
        try withExtendedLifetime(stream) {
            try Self.locked {
                var error: UnsafeMutablePointer<GError>?
                if gexiv2_metadata_save_stream(handle, &callbacks, &error) == 0 || error != nil {
                    throw Self.error(error, "write metadata", path: origin, warnings: Log.take())
                }
                warnings += Log.take()
            }
        }
        // exiv2 writes the new file from its start; what lies past its end is the old file's tail.
        guard stream.written > 0 else { throw MediaError(.exiv2, "write metadata", "exiv2 wrote nothing", path: origin) }
        return Array(stream.bytes.prefix(stream.written))
    }

    /// Bytes read and written through gexiv2's stream callbacks (one call at a time, under the lock).
    final class MemoryStream {
        var bytes: [UInt8]
        var position = 0
        /// The end of what was written (exiv2 rewrites the whole file from 0).
        var written = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        static func from(_ handle: UnsafeMutableRawPointer?) -> MemoryStream? {
            // gexiv2 passes back the handle it was given: this stream, alive for the call.
            handle.map { Unmanaged<MemoryStream>.fromOpaque(UnsafeRawPointer($0)).takeUnretainedValue() }
        }

        func read(into buffer: UnsafeMutableRawPointer?, offset: Int, count: Int) -> gint32 {
            guard let buffer, count > 0, offset >= 0, position < bytes.count else { return 0 }
            let n = min(count, bytes.count - position)
            bytes.withUnsafeBytes { source in
                guard let base = source.baseAddress else { return }
                (buffer + offset).copyMemory(from: base + position, byteCount: n)
            }
            position += n
            return gint32(n)
        }

        func write(from buffer: UnsafeMutableRawPointer?, offset: Int, count: Int) {
            guard let buffer, count > 0, offset >= 0 else { return }
            let end = position + count
            if end > bytes.count { bytes.append(contentsOf: repeatElement(0, count: end - bytes.count)) }
            bytes.withUnsafeMutableBytes { target in
                guard let base = target.baseAddress else { return }
                (base + position).copyMemory(from: buffer + offset, byteCount: count)
            }
            position = end
            written = max(written, end)
        }

        func seek(_ offset: Int, origin: WrapperSeekOrigin) {
            let base: Int
            switch origin {
            case Current: base = position
            case End: base = bytes.count
            default: base = 0
            }
            let (target, overflow) = base.addingReportingOverflow(offset)
            position = overflow ? bytes.count : min(max(0, target), bytes.count)
        }
    }

    /// Copies every tag of `other` that this file does not hold, family by family (the input's
    /// metadata onto an output): values as stored, lists as lists. Returns what could not be written.
    @discardableResult
    public func copyMissing(from other: ImageMetadata, families: Set<MetadataFamily>) -> [String] {
        var failed: [String] = []
        for tag in other.tags where families.contains(tag.family) && !has(tag.key) {
            do {
                if let list = tag.raw.list, tag.key.hasPrefix("Xmp.") || list.count > 1 {
                    try set(tag.key, values: list)
                } else {
                    try set(tag.key, text: tag.raw.text)
                }
            } catch {
                failed.append(tag.key)
            }
        }
        return failed
    }

    // MARK: helpers

    private static let lock = NSLock()

    /// Runs `body` holding the one exiv2 lock; the log handler is installed on first use.
    static func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        Log.install()
        return try body()
    }

    /// exiv2's messages, collected while the lock is held and handed to the call that caused them.
    enum Log {
        nonisolated(unsafe) static var installed = false
        nonisolated(unsafe) static var lines: [String] = []

        static func install() {
            guard !installed else { return }
            installed = true
            // gexiv2_initialize sets up the XMP toolkit once, before any thread parses XMP.
            _ = gexiv2_initialize()
            gexiv2_log_set_level(GEXIV2_LOG_LEVEL_WARN)
            gexiv2_log_set_handler { _, message in
                guard let message else { return }
                let line = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
                // Bounded: a damaged maker note can warn once per entry.
                if !line.isEmpty, ImageMetadata.Log.lines.count < 20 { ImageMetadata.Log.lines.append(line) }
            }
        }

        static func take() -> [String] {
            defer { lines = [] }
            return lines
        }
    }

    /// A GError as a MediaError (its message and exiv2's code kept), freed.
    static func error(_ error: UnsafeMutablePointer<GError>?, _ operation: String, path: String, warnings: [String]) -> MediaError {
        guard let error else {
            let extra = warnings.isEmpty ? "" : ": " + warnings.joined(separator: "; ")
            return MediaError(.exiv2, operation, "exiv2 cannot \(operation)\(extra)", path: path)
        }
        defer { g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        let code = error.pointee.code
        return MediaError(.exiv2, operation, "exiv2 cannot \(operation): \(message)", cause: cause(code: code, message: message), path: path)
    }

    /// exiv2's code for a file of a format it does not know (kerFileContainsUnknownImageType, 0.27).
    public static let unknownImageType: Int32 = 11

    /// exiv2's error codes (exiv2/error.hpp, 0.27): what the content is, not what the system did.
    static func cause(code: Int32, message: String) -> MediaError.Cause {
        // kerNotAnImage 2 (in 0.27's numbering 3) … are reported with their code; a file exiv2
        // cannot open (kerDataSourceOpenFailed, kerFileOpenFailed) carries the system's errno in
        // its words only, so it stays the library's code.
        .library(code: code)
    }

    /// A C string list (NULL-terminated, owned by the caller) as Swift strings, freed.
    static func strings(_ list: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?) -> [String] {
        guard let list else { return [] }
        defer { g_strfreev(list) }
        var out: [String] = []
        var index = 0
        while let item = list[index] {
            out.append(text(item))
            index += 1
        }
        return out
    }

    /// Text as stored: UTF-8, or (IPTC without a charset, old EXIF) Latin-1 when it is not valid UTF-8.
    static func text(_ pointer: UnsafePointer<gchar>) -> String {
        let bytes = UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self)
        let buffer = UnsafeBufferPointer(start: bytes, count: strlen(pointer))
        if let utf8 = String(validating: buffer, as: UTF8.self) { return utf8 }
        return String(buffer.map { Character(Unicode.Scalar($0)) })
    }

    static func text(_ pointer: UnsafeMutablePointer<gchar>) -> String { text(UnsafePointer(pointer)) }
}

/// The three families of image metadata.
public enum MetadataFamily: String, Sendable, CaseIterable {
    case exif, iptc, xmp

    /// libvips' name of the same kind.
    public var kind: ImageFormat.Metadata {
        switch self {
        case .exif: return .exif
        case .iptc: return .iptc
        case .xmp: return .xmp
        }
    }
}

extension ImageFormat {
    /// The families exiv2 0.27 writes into a file of this format (checked with exiftool): JPEG, PNG
    /// (IPTC as its "Raw profile type iptc" text chunk) and TIFF all three, WebP EXIF and XMP (it has
    /// no IPTC chunk); JPEG XL EXIF and XMP, which exiv2 puts together and Medley boxes with the
    /// codestream (`JPEGXLContainer`); HEIF and AVIF it only reads, GIF holds none.
    public var exiv2Writes: Set<MetadataFamily> {
        switch self {
        case .jpeg, .png, .tiff: return [.exif, .iptc, .xmp]
        case .webp, .jxl: return [.exif, .xmp]
        case .heif, .avif, .gif: return []
        }
    }
}
