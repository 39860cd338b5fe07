/// Core Image's parameter types (`CIAttributeType…`), which say how a value is meant.
public enum AttributeType: String, Sendable, CaseIterable {
    case scalar = "CIAttributeTypeScalar"
    case angle = "CIAttributeTypeAngle"
    case distance = "CIAttributeTypeDistance"
    case position = "CIAttributeTypePosition"
    /// A point in space [x, y, z] (CISpotLight's light position).
    case position3 = "CIAttributeTypePosition3"
    case offset = "CIAttributeTypeOffset"
    case color = "CIAttributeTypeColor"
    case opaqueColor = "CIAttributeTypeOpaqueColor"
    case rectangle = "CIAttributeTypeRectangle"
    case transform = "CIAttributeTypeTransform"
    case count = "CIAttributeTypeCount"
    case integer = "CIAttributeTypeInteger"
    case boolean = "CIAttributeTypeBoolean"
    case image = "CIAttributeTypeImage"
    /// Medley's own filters: one word from a fixed list (`resize`'s `mode`). Core Image has none.
    case choice = "MedleyAttributeTypeChoice"
    /// A CIVector of fixed length that Core Image declares with no `CIAttributeType`, only its class
    /// (CIColorClamp's components, CIColorPolynomial's coefficients): as long as its default.
    case vector = "MedleyAttributeTypeVector"
    /// A message to encode (barcodes' `inputMessage`): Core Image takes NSData; Medley takes text
    /// and encodes it as UTF-8.
    case text = "MedleyAttributeTypeText"
    /// A list of numbers that Core Image takes as NSData (CIColorCube's `inputCubeData`); Core
    /// Image declares only the class for these, no type.
    case data = "MedleyAttributeTypeData"
    /// A file the pipeline names (Medley's own: a LUT file), read and parsed while the pipeline
    /// is validated; the filter gets the parsed table, never the file.
    case file = "MedleyAttributeTypeFile"

    /// The class Core Image reports for values of this type (`CIAttributeClass`).
    public var attributeClass: String {
        switch self {
        case .scalar, .angle, .distance, .count, .integer, .boolean: return "NSNumber"
        case .position, .position3, .offset, .rectangle, .vector: return "CIVector"
        case .transform: return "NSAffineTransform"
        case .color, .opaqueColor: return "CIColor"
        case .image: return "CIImage"
        case .choice, .text: return "NSString"
        case .data: return "NSData"
        case .file: return "NSURL"
        }
    }

    /// Whether values are single numbers that min/max bounds apply to.
    public var isNumeric: Bool { attributeClass == "NSNumber" && self != .boolean }
}

/// One input of a filter, declared once: validation, `setDefaults()`, `filters describe` and
/// the docs all read this, and nothing restates it. Fields Core Image leaves out stay nil.
public struct ParameterAttributes: Sendable {
    public let name: String
    public let type: AttributeType
    public let displayName: String
    public let description: String
    public let defaultValue: FilterValue?
    public let identity: FilterValue?
    /// Hard bounds: a value outside them is a validation error.
    public let minimum: Double?
    public let maximum: Double?
    /// The range a UI slider offers; values outside it are allowed.
    public let sliderMinimum: Double?
    public let sliderMaximum: Double?
    /// The words a `.choice` parameter accepts.
    public let choices: [String]?
    /// Medley's own hard maximum where Core Image declares none, because the maths or memory
    /// needs one (`MedleyAttributeLimit`): a larger value is a validation error saying why.
    public let limit: ParameterLimit?

    public init(name: String, type: AttributeType, displayName: String, description: String,
                defaultValue: FilterValue? = nil, identity: FilterValue? = nil,
                minimum: Double? = nil, maximum: Double? = nil,
                sliderMinimum: Double? = nil, sliderMaximum: Double? = nil, choices: [String]? = nil,
                limit: ParameterLimit? = nil) {
        self.name = name
        self.type = type
        self.displayName = displayName
        self.description = description
        self.defaultValue = defaultValue
        self.identity = identity
        self.minimum = minimum
        self.maximum = maximum
        self.sliderMinimum = sliderMinimum
        self.sliderMaximum = sliderMaximum
        self.choices = choices
        self.limit = limit
    }

    /// The standard `inputImage` declaration.
    public static let inputImage = ParameterAttributes(
        name: "inputImage", type: .image, displayName: "Image",
        description: "The image to use as an input for the effect.")

    /// The standard `inputCenter` declaration (Core Image's default centre, 150 × 150).
    public static let inputCenter = ParameterAttributes(
        name: "inputCenter", type: .position, displayName: "Center",
        description: "The center of the effect as x and y pixel coordinates.",
        defaultValue: .vector([150, 150]))

    /// The standard `inputBackgroundImage` declaration of compositing filters.
    public static let inputBackgroundImage = ParameterAttributes(
        name: "inputBackgroundImage", type: .image, displayName: "Background Image",
        description: "The image to use as a background image.")
}

extension ParameterAttributes {
    /// How many numbers a `.vector` parameter takes: as many as its default holds.
    public var vectorLength: Int? {
        guard type == .vector, case .vector(let values)? = defaultValue else { return nil }
        return values.count
    }
}

/// A bound Medley puts on a parameter that Core Image leaves unbounded, with the reason.
public struct ParameterLimit: Sendable, Equatable {
    public let maximum: Double
    /// Why, as the end of a sentence: "a blur that wide needs …".
    public let reason: String

    public init(_ maximum: Double, because reason: String) {
        self.maximum = maximum
        self.reason = reason
    }

    /// The widest Gaussian (σ, in pixels): it reaches 3σ on every side, so each 128-pixel tile reads
    /// a window of (128 + 6σ)² pixels — 44 MB of float RGB at σ = 300, 600 MB at σ = 1000.
    public static let gaussianRadius = ParameterLimit(
        300, because: "a blur reaches 3 × its radius on every side, and a wider one needs hundreds of MB per tile")

    /// The largest pixellate cell: each tile reads the cells it touches whole.
    public static let cellSize = ParameterLimit(
        1000, because: "every tile reads the whole cells it touches, and larger cells need hundreds of MB per tile")

    /// The longest side any image can have (libvips' VIPS_MAX_COORD): a scale or a box beyond it never fits.
    public static let imageSide = ParameterLimit(
        10_000_000, because: "no image side can be longer than 10,000,000 pixels (libvips' limit)")
}

/// What `CIFilter.attributes` says of a whole filter.
public struct FilterAttributes: Sendable {
    public let name: String
    public let displayName: String
    /// `CICategory…` names, the first being the main one.
    public let categories: [String]
    /// One sentence on what the filter does.
    public let summary: String
    /// Where the maths comes from: Apple's published formula, or the open formulation used.
    public let reference: String
    public let parameters: [ParameterAttributes]

    public init(name: String, displayName: String, categories: [String], summary: String,
                reference: String, parameters: [ParameterAttributes]) {
        self.name = name
        self.displayName = displayName
        self.categories = categories
        self.summary = summary
        self.reference = reference
        self.parameters = parameters
    }

    public func parameter(_ key: String) -> ParameterAttributes? {
        parameters.first { $0.name == key }
    }

    /// Keys that take images (`inputImage`, `inputBackgroundImage`, …).
    public var imageKeys: [String] { parameters.filter { $0.type == .image }.map(\.name) }
}
