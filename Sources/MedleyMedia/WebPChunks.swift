import Foundation

/// The RIFF chunks of a WebP file (Google's container spec: "RIFF" size "WEBP", then chunks of a
/// four-character code, a little-endian 32-bit size and the data padded to an even length).
///
/// libvips 8.14's webpsave writes an EXIF chunk even when asked to strip (it rebuilds EXIF from
/// the resolution), so a stripped WebP is cleaned here, after libvips has written it.
enum WebPChunks {
    /// Removes the EXIF, XMP and ICC chunks of the WebP file at `path` and clears their flags in
    /// the VP8X header. A file that is not a well-formed WebP is left as it is.
    /// With `keepICC`, the ICC chunk stays.
    static func stripMetadata(fileAt path: String, keepICC: Bool = false) throws {
        let url = URL(fileURLWithPath: path)
        let bytes = [UInt8](try Data(contentsOf: url))
        guard let cleaned = strippingMetadata(bytes, keepICC: keepICC), cleaned != bytes else { return }
        try Data(cleaned).write(to: url)
    }

    /// The file without its EXIF, XMP and ICCP chunks, or nil when it is not a RIFF WebP.
    static func strippingMetadata(_ bytes: [UInt8], keepICC: Bool = false) -> [UInt8]? {
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WEBP".utf8) else {
            return nil
        }
        let dropped: Set<String> = keepICC ? ["EXIF", "XMP "] : ["EXIF", "XMP ", "ICCP"]
        let flags = UInt8(0x08 | 0x04) | (keepICC ? 0 : 0x20)
        var body: [UInt8] = Array("WEBP".utf8)
        var at = 12
        while at + 8 <= bytes.count {
            let code = String(decoding: bytes[at..<at + 4], as: UTF8.self)
            let size = u32(at + 4)
            let end = at + 8 + size + (size & 1)
            guard size >= 0, end <= bytes.count || at + 8 + size == bytes.count else { return nil }
            let chunkEnd = min(end, bytes.count)
            if !dropped.contains(code) {
                var chunk = Array(bytes[at..<chunkEnd])
                // VP8X flags: ICC 0x20, EXIF 0x08, XMP 0x04.
                if code == "VP8X", chunk.count > 8 { chunk[8] &= ~flags }
                body += chunk
            }
            at = chunkEnd
        }
        let size = UInt32(body.count)
        return Array("RIFF".utf8) + [UInt8(size & 0xFF), UInt8(size >> 8 & 0xFF), UInt8(size >> 16 & 0xFF), UInt8(size >> 24)] + body
    }
}
