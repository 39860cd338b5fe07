import MedleyKernels

/// CIQRCodeGenerator: a QR code (ISO/IEC 18004) of the message, one pixel per module (times
/// Medley's `scale`) with a quiet zone of 4 modules all round — the standard's minimum (Apple does
/// not document the width of Core Image's). The symbol comes from libqrencode (byte mode, the
/// smallest version that holds the message; text beyond ASCII is marked UTF-8 by an ECI header). Unlike Core Image's generators that fill the graph
/// input's extent, the result has the code's own size, anchored at the origin (bottom-left), so a
/// compositing filter places it in a picture's bottom-left corner.
enum QRCodeGenerator: FilterDefinition {
    static let attributes = FilterAttributes(
        name: "CIQRCodeGenerator",
        displayName: "QR Code Generator",
        categories: [Category.generator, Category.stillImage, Category.builtIn],
        summary: "Generate a QR Code image for message data.",
        reference: "ISO/IEC 18004 QR code by libqrencode (byte mode, smallest version, ECI 26 = UTF-8 for non-ASCII text); 1 pixel per module × scale, 4-module quiet zone",
        parameters: [
            ParameterAttributes(
                name: "inputMessage", type: .text, displayName: "Message",
                description: "The message to encode in the QR Code (text, encoded as UTF-8).",
                limit: ParameterLimit(Double(QRCorrectionLevel.L.byteCapacity),
                                      because: "no QR code holds more (version 40 at correction level L)")),
            ParameterAttributes(
                name: "inputCorrectionLevel", type: .choice, displayName: "CorrectionLevel",
                description: "QR Code correction level L, M, Q, or H.",
                defaultValue: .text("M"), choices: QRCorrectionLevel.allCases.map(\.rawValue)),
            BarcodeOperation.scaleParameter,
        ])

    /// The quiet zone, in modules.
    static let quietModules = 4

    static func level(_ inputs: FilterInputs) -> QRCorrectionLevel {
        inputs.text("inputCorrectionLevel").flatMap(QRCorrectionLevel.init(rawValue:)) ?? .M
    }

    static func problem(_ inputs: FilterInputs) -> String? {
        guard let message = inputs.text("inputMessage") else { return "CIQRCodeGenerator needs an inputMessage" }
        let level = level(inputs)
        guard message.utf8.count <= level.capacity(for: message) else {
            return "CIQRCodeGenerator.inputMessage is \(message.utf8.count) bytes, more than a QR code holds at correction level "
                + "\(level.rawValue) (\(level.capacity(for: message))); shorten it or choose a lower level"
        }
        return nil
    }

    static func outputImage(_ inputs: FilterInputs) -> FilterImage? {
        guard let message = inputs.text("inputMessage"), let encoder = inputs.qrEncoder,
              let matrix = encoder.modules(for: Array(message.utf8), level: level(inputs)) else { return nil }
        let scale = Int(exactly: inputs.number("scale") ?? 1) ?? 1
        return BarcodeOperation(matrix: matrix, quiet: quietModules * scale, moduleWidth: scale, moduleHeight: scale).image
    }
}
