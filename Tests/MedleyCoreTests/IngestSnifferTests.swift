import Foundation
import XCTest
@testable import MedleyCore

/// Headers are built by hand from each format's specification; the expected kind/format pairs are written here
/// rather than taken from the sniffer's own catalogue, so a wrong mapping in the code shows up as a failure.
final class IngestSnifferTests: XCTestCase {
    // MARK: - Header builders

    private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    private func be32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }
    /// Pads with zeros to 64 bytes, as if the rest of the file followed.
    private func padded(_ bytes: [UInt8], to length: Int = 64) -> [UInt8] {
        bytes + [UInt8](repeating: 0, count: max(0, length - bytes.count))
    }

    /// An ISO-BMFF "ftyp" box: size, "ftyp", major brand, minor version, compatible brands; then a "free" box.
    private func ftyp(_ major: String, _ compatible: [String] = []) -> [UInt8] {
        let size = UInt32(16 + 4 * compatible.count)
        var box = be32(size) + ascii("ftyp") + ascii(major) + be32(0)
        for brand in compatible { box += ascii(brand) }
        return padded(box + be32(8) + ascii("free"))
    }

    /// An EBML header as written by mkvmerge/ffmpeg, with the given DocType.
    private func ebml(docType: String?) -> [UInt8] {
        var body: [UInt8] = [0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01, 0x42, 0xF2, 0x81, 0x04, 0x42, 0xF3, 0x81, 0x08]
        if let docType { body += [0x42, 0x82, 0x80 | UInt8(docType.utf8.count)] + ascii(docType) }
        body += [0x42, 0x87, 0x81, 0x04, 0x42, 0x85, 0x81, 0x02]
        return padded([0x1A, 0x45, 0xDF, 0xA3, 0x80 | UInt8(body.count)] + body + [0x18, 0x53, 0x80, 0x67])
    }

    /// The first Ogg page (beginning of stream) carrying one packet.
    private func oggPage(packet: [UInt8]) -> [UInt8] {
        let header = ascii("OggS") + [0x00, 0x02] + [UInt8](repeating: 0, count: 8) + le32(0x1234) + le32(0) + le32(0)
        return padded(header + [0x01, UInt8(packet.count)] + packet)
    }

    private func assertSniffs(_ header: [UInt8], _ kind: MediaKind, _ format: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(ContentSniffer.sniff(header), SniffedFormat(kind: kind, format: format),
                       "header \(header.prefix(16).map { String(format: "%02X", $0) }.joined(separator: " "))",
                       file: file, line: line)
    }

    // MARK: - Images

    func testImageSignatures() {
        assertSniffs(padded([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + ascii("JFIF")), .image, "jpeg")
        assertSniffs(padded([0xFF, 0xD8, 0xFF, 0xE1, 0x12, 0x34] + ascii("Exif")), .image, "jpeg")
        assertSniffs(padded([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ascii("IHDR")), .image, "png")
        assertSniffs(padded(ascii("GIF87a") + [0x10, 0x00, 0x10, 0x00]), .image, "gif")
        assertSniffs(padded(ascii("GIF89a") + [0x10, 0x00, 0x10, 0x00]), .image, "gif")
        assertSniffs(padded(ascii("RIFF") + le32(1000) + ascii("WEBPVP8 ")), .image, "webp")
        assertSniffs(padded([0x49, 0x49, 0x2A, 0x00] + le32(8)), .image, "tiff")
        assertSniffs(padded([0x4D, 0x4D, 0x00, 0x2A] + be32(8)), .image, "tiff")
        assertSniffs(padded([0xFF, 0x0A, 0xFA, 0x1F]), .image, "jxl")
        assertSniffs(padded([0x00, 0x00, 0x00, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]), .image, "jxl")
        // BITMAPFILEHEADER (file size, reserved, pixel offset) then a 40-byte BITMAPINFOHEADER.
        assertSniffs(padded(ascii("BM") + le32(70) + le32(0) + le32(54) + le32(40) + le32(2) + le32(2)), .image, "bmp")
    }

    func testHEIFAndAVIFBrands() {
        assertSniffs(ftyp("heic", ["mif1", "heic"]), .image, "heif")
        assertSniffs(ftyp("heix", ["mif1"]), .image, "heif")
        assertSniffs(ftyp("hevc", ["msf1"]), .image, "heif")
        assertSniffs(ftyp("heim"), .image, "heif")
        assertSniffs(ftyp("heis"), .image, "heif")
        assertSniffs(ftyp("mif1", ["heic"]), .image, "heif")
        assertSniffs(ftyp("msf1", ["hevc"]), .image, "heif")
        assertSniffs(ftyp("avif", ["mif1", "miaf"]), .image, "avif")
        assertSniffs(ftyp("avis", ["msf1"]), .image, "avif")
        // libavif and some cameras put the generic brand first and name AVIF only among the compatible brands.
        assertSniffs(ftyp("mif1", ["mif1", "avif", "miaf"]), .image, "avif")
    }

    // MARK: - Audio

    func testAudioSignatures() {
        assertSniffs(padded(ascii("RIFF") + le32(36) + ascii("WAVEfmt ") + le32(16)), .audio, "wav")
        assertSniffs(padded(ascii("FORM") + be32(100) + ascii("AIFFCOMM")), .audio, "aiff")
        assertSniffs(padded(ascii("FORM") + be32(100) + ascii("AIFCFVER")), .audio, "aiff")
        assertSniffs(padded(ascii("caff") + [0x00, 0x01, 0x00, 0x00] + ascii("desc")), .audio, "caf")
        assertSniffs(padded(ascii("fLaC") + [0x00, 0x00, 0x00, 0x22]), .audio, "flac")
        assertSniffs(ftyp("M4A ", ["M4A ", "mp42", "isom"]), .audio, "m4a")
        // The audiobook brand stays apart: it makes the item an audioBook.
        assertSniffs(ftyp("M4B ", ["M4B ", "mp42"]), .audio, "m4b")
        assertSniffs(ftyp("M4P "), .audio, "m4a")
    }

    /// ISO/IEC 14496-12 §4.2: a box whose size is 1 has a 64-bit size after its type, so its
    /// brands start at byte 16 (mutagen and libavformat read such files as MP4).
    func testAnFtypBoxWithA64BitSize() {
        func large(_ major: String, _ compatible: [String]) -> [UInt8] {
            var box = be32(1) + ascii("ftyp") + be32(0) + be32(UInt32(24 + 4 * compatible.count)) + ascii(major) + be32(0)
            for brand in compatible { box += ascii(brand) }
            return padded(box + be32(8) + ascii("free"))
        }
        assertSniffs(large("M4A ", ["M4A ", "mp42", "isom"]), .audio, "m4a")
        assertSniffs(large("isom", ["isom", "avc1"]), .movie, "mp4")
        assertSniffs(large("heic", ["mif1", "heic"]), .image, "heif")
    }

    /// A FLAC with an ID3v2 tag in front (which libFLAC, FFmpeg and mutagen skip) is a FLAC: the
    /// sniffer looks past the tag in the file.
    func testFLACBehindAnID3TagInAFile() throws {
        let path = NSTemporaryDirectory() + "medley-sniff-\(UUID().uuidString).flac"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // ID3v2.4, syncsafe size 0x00 0x00 0x01 0x00 (128 bytes of padding), then "fLaC" and STREAMINFO's header.
        let bytes = ascii("ID3") + [0x04, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00] + [UInt8](repeating: 0, count: 128)
            + ascii("fLaC") + [0x80, 0x00, 0x00, 0x22] + [UInt8](repeating: 0, count: 34)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try ContentSniffer.sniff(fileAt: path), SniffedFormat(kind: .audio, format: "flac"))
        // The same tag before MPEG frames stays an MP3.
        try Data(Array(bytes.prefix(138)) + [0xFF, 0xFB, 0x90, 0x64] + [UInt8](repeating: 0, count: 413)).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try ContentSniffer.sniff(fileAt: path), SniffedFormat(kind: .audio, format: "mp3"))
    }

    func testOggTellsOpusFromOtherCodecs() {
        let opus = ascii("OpusHead") + [0x01, 0x02, 0x38, 0x01, 0x80, 0xBB, 0x00, 0x00, 0x00, 0x00, 0x00]
        assertSniffs(oggPage(packet: opus), .audio, "opus")
        let vorbis = [0x01] + ascii("vorbis") + le32(0) + [0x02] + le32(44_100) + le32(0) + le32(128_000) + le32(0) + [0xB8, 0x01]
        assertSniffs(oggPage(packet: vorbis), .audio, "ogg")
        // Theora's identification header (0x80 "theora", version 3.2.1) is video.
        assertSniffs(oggPage(packet: [0x80] + ascii("theora") + [0x03, 0x02, 0x01, 0x00, 0x28, 0x00, 0x1E]), .movie, "ogv")
    }

    func testMP3FromID3TagAndFromFrameSync() {
        // ID3v2.4 header: "ID3", version 4.0, flags, syncsafe size; then a TIT2 frame.
        assertSniffs(padded(ascii("ID3") + [0x04, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01] + ascii("TIT2")), .audio, "mp3")
        // MPEG-1 Layer III, 128 kbit/s, 44.1 kHz: FF FB 90 64. The frame is 417 bytes, longer than the header.
        assertSniffs(padded([0xFF, 0xFB, 0x90, 0x64]), .audio, "mp3")
        // MPEG-2 Layer III, 8 kbit/s, 22.05 kHz: 26-byte frames, so the second frame header is checked too.
        let lowRateFrame = [0xFF, 0xF3, 0x10, 0xC4] + [UInt8](repeating: 0, count: 22)
        assertSniffs(lowRateFrame + lowRateFrame + lowRateFrame, .audio, "mp3")
        XCTAssertNil(ContentSniffer.sniff(lowRateFrame + [UInt8](repeating: 0x55, count: 38)),
                     "a valid first frame followed by garbage where the second frame should be is not MP3")
    }

    // MARK: - Movies

    func testMovieSignatures() {
        assertSniffs(padded(ascii("RIFF") + le32(1000) + ascii("AVI LIST")), .movie, "avi")
        assertSniffs(ftyp("qt  ", ["qt  "]), .movie, "mov")
        for brand in ["3gp4", "3gp5", "3gp6", "3g2a"] {
            assertSniffs(ftyp(brand, [brand, "isom"]), .movie, "3gp")
        }
        for brand in ["isom", "iso2", "mp41", "mp42", "avc1", "M4V ", "dash", "mmp4"] {
            assertSniffs(ftyp(brand, ["isom"]), .movie, "mp4")
        }
        // A vendor major brand (Sony XAVC) is unknown; the compatible brands decide.
        assertSniffs(ftyp("XAVC", ["XAVC", "mp42", "iso2"]), .movie, "mp4")
        assertSniffs(ebml(docType: "webm"), .movie, "webm")
        assertSniffs(ebml(docType: "matroska"), .movie, "mkv")
        assertSniffs(ebml(docType: nil), .movie, "mkv")
        // QuickTime before `ftyp`: the file opens with a movie, data or padding atom.
        for atom in ["moov", "mdat", "wide", "free", "skip"] {
            assertSniffs(padded(be32(8) + ascii(atom) + be32(1000) + ascii("mvhd")), .movie, "mov")
        }
        XCTAssertNil(ContentSniffer.sniff(padded(be32(4) + ascii("moov"))), "an atom smaller than its own header")
    }

    /// PDF by its "%PDF-" header; SVG as XML whose leading bytes (after a BOM, white space, the XML
    /// declaration, comments and a DOCTYPE) hold an `<svg` element. Other XML and text naming "<svg" are not SVG.
    func testVectorSignatures() {
        let svg = SniffedFormat(kind: .image, format: "svg"), pdf = SniffedFormat(kind: .image, format: "pdf")
        XCTAssertEqual(ContentSniffer.sniff(padded(ascii("%PDF-1.7\n%\u{E2}\u{E3}"))), pdf)
        XCTAssertEqual(ContentSniffer.sniff(ascii("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"8\"/>")), svg)
        let inkscape = "\u{FEFF}\n<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<!-- Created with Inkscape -->\n"
            + "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n<svg\n  width=\"16\">"
        XCTAssertEqual(ContentSniffer.sniff(ascii(inkscape)), svg)
        XCTAssertEqual(ContentSniffer.sniff(ascii("<svg:svg xmlns:svg=\"http://www.w3.org/2000/svg\"/>")), svg)
        XCTAssertNil(ContentSniffer.sniff(ascii("<?xml version=\"1.0\"?><html><p>&lt;svg</p><svgfoo/></html>")))
        XCTAssertNil(ContentSniffer.sniff(ascii("#!/usr/bin/env python3\nICON = \"\"\"<svg width='8'/>\"\"\"\n")))
        XCTAssertNil(ContentSniffer.sniff(ascii("<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"></x:xmpmeta>")))
    }

    func testEveryKindIsProducedBySomeHeader() {
        let kinds = Set([ftyp("heic"), ftyp("M4A "), ftyp("mp42")].compactMap { ContentSniffer.sniff($0)?.kind })
        XCTAssertEqual(kinds, Set(MediaKind.allCases))
    }

    // MARK: - Negatives

    func testTextIsNotMedia() {
        for text in ["Hello, world! This is a plain text file.\n", "BMW owners club minutes, 2023\n",
                     "ID3 tags explained\n", "RIFFRAFF and other words\n", "{\"json\": true}\n", "#!/bin/sh\nexit 0\n",
                     "FORM 1040 instructions\n", "OggS"] {
            XCTAssertNil(ContentSniffer.sniff(ascii(text)), "text \(text.debugDescription) must not be recognised")
        }
    }

    func testNearMissesAreRejected() {
        XCTAssertNil(ContentSniffer.sniff([]))
        XCTAssertNil(ContentSniffer.sniff([0xFF, 0xD8]), "two bytes of JPEG are not enough, and are not an MPEG frame")
        XCTAssertNil(ContentSniffer.sniff(padded([0xFF, 0xFF, 0xFF, 0xFF])), "bitrate index 15 is invalid")
        XCTAssertNil(ContentSniffer.sniff(padded([0xFF, 0xFB, 0x00, 0x64])), "free-format bitrate is refused")
        XCTAssertNil(ContentSniffer.sniff(padded([0xFF, 0xFB, 0x9C, 0x64])), "sample-rate index 3 is reserved")
        XCTAssertNil(ContentSniffer.sniff(padded([0xFF, 0xF1, 0x50, 0x80, 0x02, 0x1F, 0xFC])), "AAC/ADTS is not MP3")
        XCTAssertNil(ContentSniffer.sniff(padded(ascii("RIFF") + le32(100) + ascii("CDXA"))), "unknown RIFF form")
        XCTAssertNil(ContentSniffer.sniff(ftyp("xyzw", ["abcd"])), "unknown ISO brands")
        // Canon's CR3 was the unknown brand here; it is a camera RAW since issue 29 (RawSniffTests).
        XCTAssertEqual(ContentSniffer.sniff(ftyp("crx ", ["crx "])), SniffedFormat(kind: .image, format: "raw"))
        XCTAssertNil(ContentSniffer.sniff(padded(ascii("BM") + le32(70) + le32(0) + le32(54) + le32(41))),
                     "a DIB header size that no BMP version uses")
        XCTAssertNil(ContentSniffer.sniff(padded(ascii("FORM") + be32(100) + ascii("ILBM"))), "IFF but not AIFF")
    }

    func testRandomBytesAreNotRecognised() {
        // A fixed-seed xorshift generator, so a failure is reproducible.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var recognised: [String] = []
        for _ in 0..<5000 {
            let header = (0..<64).map { _ -> UInt8 in
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                return UInt8(truncatingIfNeeded: state)
            }
            if let format = ContentSniffer.sniff(header) { recognised.append(format.format) }
        }
        XCTAssertEqual(recognised, [])
        // Data that does start with FF, as compressed streams often do, passes as MP3 only if the second byte is
        // one of the six Layer III sync patterns: 111 + version (00/10/11) + layer 01 + protection bit.
        let layerThreeSyncBytes: Set<UInt8> = [0xE2, 0xE3, 0xF2, 0xF3, 0xFA, 0xFB]
        var acceptedSecondBytes: Set<UInt8> = []
        for second in 0...255 {
            for third in stride(from: 0, through: 255, by: 17) {
                var header = [UInt8](repeating: 0xA5, count: 64)
                header[0] = 0xFF
                header[1] = UInt8(second)
                header[2] = UInt8(third)
                if ContentSniffer.sniff(header)?.format == "mp3" { acceptedSecondBytes.insert(UInt8(second)) }
            }
        }
        XCTAssertTrue(acceptedSecondBytes.isSubset(of: layerThreeSyncBytes), "accepted \(acceptedSecondBytes.sorted())")
        XCTAssertFalse(acceptedSecondBytes.isEmpty, "valid Layer III frame headers must still be accepted")
    }

    // MARK: - Files

    func testSniffFileReadsItsHeader() throws {
        let tree = try IngestTempTree()
        defer { tree.remove() }
        // The extension says JPEG; the bytes say PNG, and the bytes win.
        let path = try tree.file("actually-png.jpg", bytes: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + ascii("IHDR"))
        XCTAssertEqual(try ContentSniffer.sniff(fileAt: path), SniffedFormat(kind: .image, format: "png"))
        let short = try tree.file("short.jpg", bytes: [0xFF, 0xD8, 0xFF])
        XCTAssertEqual(try ContentSniffer.sniff(fileAt: short)?.format, "jpeg", "a file shorter than 64 bytes is fine")
        let text = try tree.file("text-named.jpg", bytes: ascii("not a picture\n"))
        XCTAssertNil(try ContentSniffer.sniff(fileAt: text))
    }

    func testSniffFileErrors() throws {
        let tree = try IngestTempTree()
        defer { tree.remove() }
        let empty = try tree.file("empty.jpg", bytes: [])
        XCTAssertThrowsError(try ContentSniffer.sniff(fileAt: empty)) { error in
            XCTAssertEqual(error as? IngestError, .empty(path: empty))
            XCTAssertTrue("\(error)".contains(empty), "the message names the file")
        }
        let missing = tree.path("nope.jpg")
        XCTAssertThrowsError(try ContentSniffer.sniff(fileAt: missing)) { error in
            XCTAssertEqual(error as? IngestError, .unreadable(path: missing, reason: "No such file or directory"))
        }
        try tree.folder("folder.jpg")
        XCTAssertThrowsError(try ContentSniffer.sniff(fileAt: tree.path("folder.jpg"))) { error in
            guard case .unreadable(let path, let reason)? = error as? IngestError else {
                return XCTFail("expected .unreadable, got \(error)")
            }
            XCTAssertEqual(path, tree.path("folder.jpg"))
            XCTAssertEqual(reason, "Is a directory")
        }
    }

    func testErrorDescriptionsNameThePathAndReason() {
        XCTAssertEqual(IngestError.unreadable(path: "/x/y.jpg", reason: "Permission denied").description,
                       "Could not read \"/x/y.jpg\": Permission denied.")
        XCTAssertEqual(IngestError.missingRoot("/photos").description, "The input \"/photos\" does not exist.")
        XCTAssertTrue(IngestError.badPattern("[a", reason: "unclosed").description.contains("\"[a\""))
        XCTAssertTrue(IngestError.empty(path: "/e.jpg").description.contains("/e.jpg"))
    }
}
