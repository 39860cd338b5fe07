import CQREncode

/// QR symbols from libqrencode (ISO/IEC 18004), the library made for the job.
public enum QRCode {
    /// Error-correction levels, from least (L, 7 % of codewords restorable) to most (H, 30 %).
    public enum Level: Int, Sendable, CaseIterable {
        case low = 0, medium, quartile, high
    }

    /// The smallest symbol holding `message` in byte mode at `level`: its side in modules and the
    /// modules row by row from the top (true: dark). Throws when the message does not fit version 40.
    public static func modules(_ message: [UInt8], level: Level) throws -> (side: Int, dark: [Bool]) {
        guard !message.isEmpty else { throw MediaError("a QR code needs a message of at least one byte") }
        let ecLevel: QRecLevel
        switch level {
        case .low: ecLevel = QR_ECLEVEL_L
        case .medium: ecLevel = QR_ECLEVEL_M
        case .quartile: ecLevel = QR_ECLEVEL_Q
        case .high: ecLevel = QR_ECLEVEL_H
        }
        guard let length = Int32(exactly: message.count),
              let code = message.withUnsafeBufferPointer({ QRcode_encodeData(length, $0.baseAddress, 0, ecLevel) }) else {
            throw MediaError("libqrencode cannot encode \(message.count) bytes at that correction level (too long for a QR code)")
        }
        defer { QRcode_free(code) }
        let side = Int(code.pointee.width)
        guard side > 0, let data = code.pointee.data else { throw MediaError("libqrencode returned an empty symbol") }
        // Bit 0 of each byte is the module's colour (1: dark); the other bits say what the module is for.
        let dark = UnsafeBufferPointer(start: data, count: side * side).map { $0 & 1 == 1 }
        return (side, dark)
    }
}
