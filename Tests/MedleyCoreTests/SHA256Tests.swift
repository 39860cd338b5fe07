import Foundation
import XCTest
@testable import MedleyCore

/// The report's SHA-256 against `sha256sum` (GNU coreutils) of the same bytes, printed when the
/// test was written: the empty input, FIPS 180-2's "abc" and 448-bit examples, inputs at the
/// padding's edges (55, 56 and 64 bytes) and longer than one block.
final class SHA256Tests: XCTestCase {
    func testDigestsEqualSha256sum() {
        let cases: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            (String(repeating: "medley ", count: 20), "3962f3e07778a8c3e792d26dd87bdcd843950114fc149c7c5dfb879191a52d71"),
            (String(repeating: "a", count: 55), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318"),
            (String(repeating: "a", count: 56), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a"),
            (String(repeating: "a", count: 64), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb"),
            (String(repeating: "a", count: 1000), "41edece42d63e8d9bf515a9ba6932e1c20cbc9f5a5d134645adb5db1b9737ea3"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(SHA256.hex(Array(text.utf8)), expected, "\(text.utf8.count) bytes")
        }
    }

    /// The CSP spelling: `sha256sum | xxd -r -p | base64`.
    func testBase64EqualsCoreutils() {
        XCTAssertEqual(SHA256.base64(Array("abc".utf8)), "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=")
        XCTAssertEqual(SHA256.base64([UInt8]()), "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=")
    }
}
