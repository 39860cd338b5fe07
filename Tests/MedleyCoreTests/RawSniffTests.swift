import Foundation
import XCTest
@testable import MedleyCore

/// Camera RAWs recognised by content (issue 29): the signatures written here from each format's
/// documentation (exiftool's and LibRaw's), never the sniffer's own table; TIFF-shaped RAWs by
/// their name plus LibRaw, so a plain TIFF stays a TIFF whatever it is called.
final class RawSniffTests: XCTestCase {
    private func ascii(_ text: String) -> [UInt8] { Array(text.utf8) }
    private func padded(_ bytes: [UInt8]) -> [UInt8] { bytes + [UInt8](repeating: 0, count: max(0, 64 - bytes.count)) }
    private let raw = SniffedFormat(kind: .image, format: "raw")

    var work = ""

    override func setUpWithError() throws {
        work = NSTemporaryDirectory() + "medley-raw-sniff-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: work)
    }

    func testSignaturesOfTheirOwnAreRAW() {
        let headers: [(String, [UInt8])] = [
            // CR2: a little-endian TIFF whose bytes 8–10 are "CR" and major version 2.
            ("CR2", [0x49, 0x49, 0x2A, 0x00, 0x10, 0x00, 0x00, 0x00, 0x43, 0x52, 0x02, 0x00]),
            // CR3: an ISO media "ftyp" box whose major brand is "crx ".
            ("CR3", [0x00, 0x00, 0x00, 0x18] + ascii("ftypcrx ") + [0x00, 0x00, 0x00, 0x01] + ascii("crx isom")),
            // CRW: CIFF, "II", a header length, then "HEAPCCDR".
            ("CRW", [0x49, 0x49, 0x1A, 0x00, 0x00, 0x00] + ascii("HEAPCCDR")),
            ("RAF", ascii("FUJIFILMCCD-RAW 0201FF383501")),
            ("ORF", ascii("IIRO") + [0x08, 0x00, 0x00, 0x00]),
            ("ORF (E-M)", ascii("IIRS") + [0x08, 0x00, 0x00, 0x00]),
            ("RW2", [0x49, 0x49, 0x55, 0x00, 0x18, 0x00, 0x00, 0x00]),
            ("MRW", [0x00] + ascii("MRM") + [0x00, 0x00, 0x0A, 0x0C]),
            ("X3F", ascii("FOVb") + [0x02, 0x00, 0x02, 0x00]),
        ]
        for (name, header) in headers {
            XCTAssertEqual(ContentSniffer.sniff(padded(header)), raw, name)
        }
    }

    func testACR3IsNeverAMovieAndOtherISOMediaStillAre() {
        let cr3 = padded([0x00, 0x00, 0x00, 0x18] + ascii("ftypcrx ") + [0x00, 0x00, 0x00, 0x01] + ascii("crx isom"))
        XCTAssertEqual(ContentSniffer.sniff(cr3)?.kind, .image)
        let mp4 = padded([0x00, 0x00, 0x00, 0x18] + ascii("ftypisom") + [0x00, 0x00, 0x02, 0x00] + ascii("isomiso2"))
        XCTAssertEqual(ContentSniffer.sniff(mp4), SniffedFormat(kind: .movie, format: "mp4"))
    }

    func testAPlainTIFFStaysATIFF() {
        // A TIFF whose bytes 8–10 are an IFD, not "CR\u{2}".
        XCTAssertEqual(ContentSniffer.sniff(padded([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x0A, 0x00])),
                       SniffedFormat(kind: .image, format: "tiff"))
    }

    /// A 1 × 1 grey uncompressed TIFF, written by hand from the TIFF 6.0 specification.
    func plainTIFF() -> Data {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { u16(v & 0xFFFF) + u16(v >> 16) }
        // Width, length, 8 bits, no compression, black is zero, the strip after the IFD, 1 sample, 1 row, 1 byte.
        let pixelAt = 8 + 2 + 9 * 12 + 4
        let entries: [(tag: Int, type: Int, value: Int)] = [
            (256, 3, 1), (257, 3, 1), (258, 3, 8), (259, 3, 1), (262, 3, 1), (273, 4, pixelAt), (277, 3, 1),
            (278, 3, 1), (279, 4, 1),
        ]
        var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8) + u16(entries.count)
        for entry in entries {
            bytes += u16(entry.tag) + u16(entry.type) + u32(1) + (entry.type == 3 ? u16(entry.value) + u16(0) : u32(entry.value))
        }
        bytes += u32(0)
        bytes += [0x80]
        return Data(bytes)
    }

    func file(_ name: String, _ data: Data) throws -> IngestedFile {
        let path = work + "/" + name
        try data.write(to: URL(fileURLWithPath: path))
        return IngestedFile(path: path, root: work, relativePath: name, size: Int64(data.count), modified: Date())
    }

    func testATIFFNamedAsARAWIsStillATIFFUnlessLibRawReadsIt() throws {
        let tiff = plainTIFF()
        XCTAssertEqual(try Identify.format(of: try file("scan.nef", tiff)), SniffedFormat(kind: .image, format: "tiff"))
        XCTAssertEqual(try Identify.format(of: try file("scan.dng", tiff)), SniffedFormat(kind: .image, format: "tiff"))
    }

    func testTIFFShapedRAWsOfTheCorpusByNameAndLibRaw() throws {
        let environment = ProcessInfo.processInfo.environment
        let data = environment["MEDLEY_TEST_DATA"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory() + "/.cache") + "/medley-tests"
        let tiny = data + "/realworld-raw/raw/tiny"
        XCTAssertTrue(FileManager.default.fileExists(atPath: tiny + "/.done"), "run scripts/test-data.sh")
        // exiftool's Nikon D70 NEF and Canon 350D DNG: TIFF's magic, LibRaw reads their headers.
        for name in ["Nikon.nef", "DNG.dng", "PhaseOne.iiq"] {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: tiny + "/" + name))
            XCTAssertEqual(Array(bytes.prefix(2)) == [0x49, 0x49] || Array(bytes.prefix(2)) == [0x4D, 0x4D], true, name)
            XCTAssertEqual(try Identify.format(of: try file(name, bytes)), raw, name)
            // The same bytes named as a TIFF are a TIFF: the name says what the file claims to be.
            XCTAssertNotEqual(try Identify.format(of: try file(name + ".tif", bytes)), raw, name)
        }
        // A CR3 by its bytes, whatever its name.
        let cr3 = try Data(contentsOf: URL(fileURLWithPath: tiny + "/CanonRaw.cr3"))
        XCTAssertEqual(try Identify.format(of: try file("clip.mp4", cr3)), raw)
    }

    func testABrokenFileNamedAsARAWIsAFailureNotIgnored() throws {
        XCTAssertThrowsError(try Identify.format(of: try file("empty.nef", Data()))) { error in
            XCTAssertTrue("\(error)".contains("empty"), "\(error)")
        }
        XCTAssertThrowsError(try Identify.format(of: try file("notes.cr2", Data("not a photo".utf8))))
    }
}
