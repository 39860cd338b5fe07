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
        guard !message.isEmpty else { throw MediaError(.libqrencode, "encode", "a QR code needs a message of at least one byte", cause: .unsupported) }
        let ecLevel: QRecLevel
        switch level {
        case .low: ecLevel = QR_ECLEVEL_L
        case .medium: ecLevel = QR_ECLEVEL_M
        case .quartile: ecLevel = QR_ECLEVEL_Q
        case .high: ecLevel = QR_ECLEVEL_H
        }
        guard let length = Int32(exactly: message.count), let input = QRinput_new2(0, ecLevel) else {
            throw MediaError(.libqrencode, "encode", "libqrencode cannot start a symbol")
        }
        defer { QRinput_free(input) }
        // Byte mode means ISO 8859-1 unless an ECI says otherwise: text beyond ASCII is marked as
        // UTF-8 (ECI 000026), so that readers do not have to guess its encoding.
        if !message.allSatisfy({ $0 < 0x80 }), QRinput_appendECIheader(input, 26) != 0 {
            throw MediaError(.libqrencode, "encode", "libqrencode cannot mark the message as UTF-8")
        }
        guard message.withUnsafeBufferPointer({ QRinput_append(input, QR_MODE_8, length, $0.baseAddress) }) == 0,
              let code = QRcode_encodeInput(input) else {
            throw MediaError(.libqrencode, "encode", "libqrencode cannot encode \(message.count) bytes at that correction level (too long for a QR code)", cause: .unsupported)
        }
        defer { QRcode_free(code) }
        let side = Int(code.pointee.width)
        guard side > 0, let data = code.pointee.data else { throw MediaError(.libqrencode, "encode", "libqrencode returned an empty symbol") }
        // Bit 0 of each byte is the module's colour (1: dark); the other bits say what the module is for.
        let dark = UnsafeBufferPointer(start: data, count: side * side).map { $0 & 1 == 1 }
        return (side, dark)
    }
}
