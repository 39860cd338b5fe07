import Foundation

/// The ICC profile put into a JPEG file as APP2 `ICC_PROFILE` segments (ICC.1:2010 Annex B.4:
/// chunks of at most 65,519 bytes, numbered from 1, each saying how many there are).
///
/// libvips 8.14's jpegsave either strips everything or writes a fresh EXIF block with the
/// profile; `strip` with `keepProfile` writes the file stripped and adds the profile here.
enum JPEGSegments {
    /// The file at `path` with `profile` inserted after its SOI and any APP0 (JFIF) segment.
    static func insertICCProfile(_ profile: [UInt8], fileAt path: String) throws {
        let url = URL(fileURLWithPath: path)
        let bytes = [UInt8](try Data(contentsOf: url))
        guard let tagged = insertingICCProfile(profile, into: bytes) else {
            throw MediaError(.medley, "add the ICC profile", "cannot add the \(profile.count)-byte ICC profile to the JPEG file (not a JPEG, or a profile over 255 segments)", cause: .unsupported)
        }
        try Data(tagged).write(to: url)
    }

    static func insertingICCProfile(_ profile: [UInt8], into bytes: [UInt8]) -> [UInt8]? {
        let chunk = 65_519
        let count = (profile.count + chunk - 1) / chunk
        guard bytes.count >= 4, bytes[0] == 0xFF, bytes[1] == 0xD8, !profile.isEmpty, count <= 255 else { return nil }
        var at = 2
        // After a JFIF APP0, as readers expect.
        if bytes[at] == 0xFF, bytes[at + 1] == 0xE0, at + 4 <= bytes.count {
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard at + 2 + length <= bytes.count else { return nil }
            at += 2 + length
        }
        var segments: [UInt8] = []
        for index in 0..<count {
            let part = profile[(index * chunk)..<min(profile.count, (index + 1) * chunk)]
            let length = 2 + 14 + part.count
            segments += [0xFF, 0xE2, UInt8(length >> 8), UInt8(length & 0xFF)]
            segments += Array("ICC_PROFILE".utf8) + [0, UInt8(index + 1), UInt8(count)] + part
        }
        return Array(bytes[..<at]) + segments + Array(bytes[at...])
    }
}
