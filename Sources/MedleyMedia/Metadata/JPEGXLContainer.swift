/// A JPEG XL file in its ISO BMFF container (ISO/IEC 18181-2): the bare codestream libvips 8.14's
/// jxlsave writes, boxed with an `Exif` box and an `xml ` box (XMP), which exiftool, libjxl and
/// the viewers built on it read. Plain byte work: each box is a 32-bit big-endian size, a
/// four-letter type and its payload.
public enum JPEGXLContainer {
    /// The container's first box, which marks a JPEG XL file in a container.
    static let signature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    /// Whether `bytes` are a bare codestream (its marker FF 0A).
    public static func isBareCodestream(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] == 0x0A
    }

    /// The codestream in a container with `exif` (a TIFF structure, "II*" or "MM\0*") and `xmp`; the
    /// metadata boxes go before the codestream, so a reader finds them without reading it.
    public static func wrap(codestream: [UInt8], exif: [UInt8]?, xmp: String?) throws -> [UInt8] {
        guard isBareCodestream(codestream) else {
            throw MediaError(.medley, "write JPEG XL metadata", "not a bare JPEG XL codestream", cause: .unsupported)
        }
        var file = signature
        // ftyp: brand "jxl ", version 0, compatible with "jxl ".
        file += try box("ftyp", Array("jxl ".utf8) + [0, 0, 0, 0] + Array("jxl ".utf8))
        if let exif {
            // The offset of the TIFF header within the payload after these four bytes: none.
            file += try box("Exif", [0, 0, 0, 0] + exif)
        }
        if let xmp { file += try box("xml ", Array(xmp.utf8)) }
        file += try box("jxlc", codestream)
        return file
    }

    /// One box: its size (header included), its type, its payload.
    static func box(_ type: String, _ payload: [UInt8]) throws -> [UInt8] {
        let size = payload.count + 8
        guard let size32 = UInt32(exactly: size) else {
            throw MediaError(.medley, "write JPEG XL metadata", "a \(type) box of \(size) bytes is over 4 GB", cause: .unsupported)
        }
        let header = [UInt8(size32 >> 24), UInt8(size32 >> 16 & 0xFF), UInt8(size32 >> 8 & 0xFF), UInt8(size32 & 0xFF)]
        return header + Array(type.utf8) + payload
    }
}
