import MedleyKernels

/// A barcode's modules, row by row from the top (true: dark): a QR symbol's square, or a linear
/// code's single row.
public struct ModuleMatrix: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let dark: [Bool]

    /// nil unless `dark` holds width × height modules.
    public init?(width: Int, height: Int, dark: [Bool]) {
        let count = width.multipliedReportingOverflow(by: height)
        guard width > 0, height > 0, !count.overflow, count.partialValue == dark.count else { return nil }
        self.width = width
        self.height = height
        self.dark = dark
    }
}

/// QR error-correction levels, as Core Image spells them.
public enum QRCorrectionLevel: String, Sendable, CaseIterable {
    case L, M, Q, H

    /// The most bytes of `message` a QR symbol holds at this level: version 40 in byte mode
    /// (ISO/IEC 18004 table 7), less 2 for the 12-bit ECI header that marks text beyond ASCII as UTF-8.
    public func capacity(for message: String) -> Int {
        byteCapacity - (message.utf8.allSatisfy { $0 < 0x80 } ? 0 : 2)
    }

    /// The most bytes a QR symbol (version 40, byte mode) holds at this level (ISO/IEC 18004 table 7).
    public var byteCapacity: Int {
        switch self {
        case .L: return 2953
        case .M: return 2331
        case .Q: return 1663
        case .H: return 1273
        }
    }
}

/// Encodes QR symbols. MedleyFilters imports no C library: the adapter over libqrencode lives in
/// MedleyMedia/MedleyCore and is handed to each `Filter` (`Filter.qrEncoder`).
public protocol QRCodeEncoding: Sendable {
    /// The smallest symbol for `message` (byte mode) at `level`, or nil when it cannot be made.
    func modules(for message: [UInt8], level: QRCorrectionLevel) -> ModuleMatrix?
}

/// Draws a module matrix, opaque black on white: `quiet` pixels of white all round, each module
/// `moduleWidth` × `moduleHeight` pixels. The image must be the code's size (see `extent`).
struct BarcodeOperation: PointOperation {
    let matrix: ModuleMatrix
    let quiet: Int
    let moduleWidth: Int
    let moduleHeight: Int

    /// The drawn code's size in pixels.
    var size: (width: Int, height: Int) {
        (matrix.width * moduleWidth + 2 * quiet, matrix.height * moduleHeight + 2 * quiet)
    }

    /// The recipe: the code drawn on a canvas of its own size (not the graph input's).
    var image: FilterImage {
        .point(self, of: .geometry(.extent(width: size.width, height: size.height), of: .constant(.zero)))
    }

    func apply(_ block: PixelBlock) {
        // Rows are counted from the top here, as the matrix's are.
        let row = block.y - quiet
        let moduleRow = row >= 0 ? row / moduleHeight : -1
        block.forEachVectorWithX { x, r, g, b, a in
            for lane in 0..<8 {
                let column = Int(x[lane]) - quiet
                let moduleColumn = column >= 0 ? column / moduleWidth : -1
                let inside = moduleRow >= 0 && moduleRow < matrix.height && moduleColumn >= 0 && moduleColumn < matrix.width
                let value: Float = inside && matrix.dark[moduleRow * matrix.width + moduleColumn] ? 0 : 1
                r[lane] = value
                g[lane] = value
                b[lane] = value
                a[lane] = 1
            }
        }
    }

    /// Medley's own `scale` parameter of the barcode generators: Core Image makes one pixel per
    /// module, which is too small to place on a picture; a whole number keeps every module sharp.
    static let scaleParameter = ParameterAttributes(
        name: "scale", type: .count, displayName: "Scale",
        description: "Medley's own: pixels per module (Core Image makes 1), a whole number so modules stay sharp.",
        defaultValue: .number(1), identity: .number(1), minimum: 1, sliderMinimum: 1, sliderMaximum: 20,
        limit: ParameterLimit(100, because: "a barcode of modules over 100 pixels wide is larger than any picture it could be placed on"))
}
