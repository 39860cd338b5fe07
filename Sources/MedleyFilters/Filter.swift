import MedleyKernels

/// A filter kind: its declaration and how it builds its output recipe. One file per filter in
/// `Catalog/`, the declaration next to the maths.
protocol FilterDefinition {
    static var attributes: FilterAttributes { get }
    /// The output recipe for the given inputs; nil when a required image is missing.
    static func outputImage(_ inputs: FilterInputs) -> FilterImage?
    /// What is wrong with these values together (a cube's data and its dimension, a message too long
    /// for its QR code), checked when a pipeline is validated; nil when nothing is. Most filters have
    /// nothing to check beyond each value's own bounds.
    static func problem(_ inputs: FilterInputs) -> String?
}

extension FilterDefinition {
    static func problem(_ inputs: FilterInputs) -> String? { nil }
}

/// Read access to a filter's current values, for `FilterDefinition.outputImage`.
struct FilterInputs {
    // Values were checked against the declaration when set, so accessors only unwrap.
    let values: [String: FilterValue]
    /// The working space the recipe will run in; colours are converted into it.
    let workingSpace: Transfer
    /// Encodes QR symbols for CIQRCodeGenerator (nil: QR codes cannot be made here).
    var qrEncoder: (any QRCodeEncoding)? = nil

    func image(_ key: String) -> FilterImage? {
        if case .image(let image)? = values[key] { return image }
        return nil
    }
    func number(_ key: String) -> Double? {
        if case .number(let n)? = values[key] { return n }
        return nil
    }
    /// A number as Float, or `fallback` when unset.
    func float(_ key: String, _ fallback: Float) -> Float {
        number(key).map(Float.init) ?? fallback
    }
    func vector(_ key: String) -> [Double]? {
        if case .vector(let v)? = values[key] { return v }
        return nil
    }
    /// A colour's red, green, blue (in the working space) and alpha. Colours are written as
    /// CIColor components are — sRGB-encoded — and, as Core Image does, converted into the
    /// working space (linear light unless `colorSpace: none`).
    func color(_ key: String) -> SIMD4<Float>? {
        guard case .color(let r, let g, let b, let a)? = values[key] else { return nil }
        return SIMD4(workingSpace.decode(Float(r)), workingSpace.decode(Float(g)), workingSpace.decode(Float(b)), Float(a))
    }
    func text(_ key: String) -> String? {
        if case .text(let word)? = values[key] { return word }
        return nil
    }
    func boolean(_ key: String) -> Bool? {
        if case .boolean(let b)? = values[key] { return b }
        return nil
    }
    func lookupTable(_ key: String) -> ColorLookupTable? {
        if case .lookupTable(let table)? = values[key] { return table }
        return nil
    }
}

/// Why a value cannot be set on a filter.
public enum FilterError: Error, Equatable, CustomStringConvertible {
    case unknownFilter(String, suggestion: String?)
    case unknownKey(filter: String, key: String, suggestion: String?)
    case wrongType(filter: String, key: String, expected: AttributeType, got: String)
    case outOfRange(filter: String, key: String, value: Double, minimum: Double?, maximum: Double?)
    /// Over Medley's own limit (`ParameterAttributes.limit`).
    case overLimit(filter: String, key: String, value: Double, limit: ParameterLimit)
    /// A number no 32-bit float holds (filters compute in Float), or not a number at all.
    case notRepresentable(filter: String, key: String, value: Double)
    case notAChoice(filter: String, key: String, value: String, choices: [String])
    /// Text a parameter cannot take (empty, too long, characters the encoding lacks).
    case badText(filter: String, key: String, reason: String)

    public var description: String {
        switch self {
        case .unknownFilter(let name, let suggestion):
            return "unknown filter '\(name)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
        case .unknownKey(let filter, let key, let suggestion):
            return "\(filter) has no parameter '\(key)'" + (suggestion.map { "; did you mean '\($0)'?" } ?? "")
        case .wrongType(let filter, let key, let expected, let got):
            return "\(filter).\(key) takes \(Self.article(expected)), not \(got)"
        case .outOfRange(let filter, let key, let value, let minimum, let maximum):
            let range = [minimum.map { "≥ \(FilterValue.format($0))" }, maximum.map { "≤ \(FilterValue.format($0))" }]
                .compactMap { $0 }.joined(separator: " and ")
            return "\(filter).\(key) = \(FilterValue.format(value)) is out of range: it must be \(range)"
        case .overLimit(let filter, let key, let value, let limit):
            return "\(filter).\(key) = \(FilterValue.format(value)) is over Medley's limit of \(FilterValue.format(limit.maximum)): \(limit.reason)"
        case .notRepresentable(let filter, let key, let value):
            return "\(filter).\(key) = \(FilterValue.format(value)) is beyond what filters compute with (32-bit floats, ±3.4e38)"
        case .notAChoice(let filter, let key, let value, let choices):
            return "\(filter).\(key) is one of \(choices.joined(separator: ", ")), not '\(value)'"
                + (nearest(value, in: choices).map { "; did you mean '\($0)'?" } ?? "")
        case .badText(let filter, let key, let reason):
            return "\(filter).\(key): \(reason)"
        }
    }

    public static func article(_ type: AttributeType) -> String {
        switch type {
        case .scalar, .angle, .distance: return "a number"
        case .count, .integer: return "a whole number"
        case .boolean: return "true or false"
        case .position, .offset: return "a vector [x, y]"
        case .position3: return "a vector [x, y, z]"
        case .rectangle: return "a rectangle [x, y, width, height]"
        case .transform: return "a transform [a, b, c, d, tx, ty]"
        case .color, .opaqueColor: return "a colour [r, g, b] or [r, g, b, a] with components 0…1"
        case .image: return "an image"
        case .choice: return "one word of a list"
        case .vector: return "a vector of numbers"
        case .text: return "text"
        case .data: return "a list of numbers"
        case .file: return "a file name"
        }
    }
}

/// A filter instance, as `CIFilter` is: create by name, `setDefaults()`, `setValue(_:forKey:)`,
/// then read `outputImage`.
public final class Filter {
    public let attributes: FilterAttributes
    private let definition: FilterDefinition.Type
    private var values: [String: FilterValue] = [:]

    /// `CIFilter(name:)`: nil when no filter has that name.
    public init?(name: String) {
        guard let definition = FilterRegistry.definition(named: name) else { return nil }
        self.definition = definition
        self.attributes = definition.attributes
    }

    public var name: String { attributes.name }

    /// Sets every parameter that has a default to its default; images are left unset.
    public func setDefaults() {
        for parameter in attributes.parameters {
            if let value = parameter.defaultValue { values[parameter.name] = value }
        }
    }

    /// Sets one input after checking its key, type and hard bounds against the declaration.
    public func setValue(_ value: FilterValue, forKey key: String) throws {
        values[key] = try Self.checked(value, forKey: key, of: attributes)
    }

    public func value(forKey key: String) -> FilterValue? { values[key] }

    /// The recipe for the result, or nil while a required image input is unset.
    public var outputImage: FilterImage? {
        definition.outputImage(FilterInputs(values: values, workingSpace: workingSpace, qrEncoder: qrEncoder))
    }

    /// The encoder CIQRCodeGenerator uses. Filters import no C library: whoever builds graphs
    /// (MedleyCore's `ImageGraph`) hands in the adapter over libqrencode.
    public var qrEncoder: (any QRCodeEncoding)?

    /// What is wrong with a whole set of values that each passed `checked` (a message too long for
    /// the chosen QR correction level), for pipeline validation; nil when nothing is.
    public static func problem(filter name: String, values: [(key: String, value: FilterValue)]) -> String? {
        guard let definition = FilterRegistry.definition(named: name) else { return nil }
        var all: [String: FilterValue] = [:]
        for parameter in definition.attributes.parameters { all[parameter.name] = parameter.defaultValue }
        for (key, value) in values { all[key] = value }
        return definition.problem(FilterInputs(values: all, workingSpace: .none))
    }

    /// Why the values set cannot work together (a cube's data that does not fit its dimension),
    /// or nil. `outputImage` is nil while there is one.
    public var problem: String? {
        definition.problem(FilterInputs(values: values, workingSpace: workingSpace))
    }

    /// The space the output recipe will be rendered in (a CIContext's working colour space):
    /// colour parameters are converted into it. Linear light by default.
    public var workingSpace: Transfer = .sRGB

    /// Validates a value against a declaration without creating a filter (pipeline validation
    /// uses this). Returns the value normalised to the parameter's type (e.g. a 3-component
    /// colour gains alpha 1).
    public static func checked(_ value: FilterValue, forKey key: String,
                               of attributes: FilterAttributes) throws -> FilterValue {
        guard let parameter = attributes.parameter(key) else {
            throw FilterError.unknownKey(filter: attributes.name, key: key,
                                         suggestion: nearest(key, in: attributes.parameters.map(\.name)))
        }
        let type = parameter.type
        // Filters compute in Float: a larger number would become infinity (and infinity · 0 NaN).
        // Rectangles are exempt: Core Image spells an infinite one with ±1.8e308 (CICrop's default).
        let numbers: [Double]
        switch value {
        case .number(let n): numbers = [n]
        case .vector(let v) where type != .rectangle: numbers = v
        case .color(let r, let g, let b, let a): numbers = [r, g, b, a]
        default: numbers = []
        }
        if let bad = numbers.first(where: { !$0.isFinite || abs($0) > Double(Float.greatestFiniteMagnitude) }) {
            throw FilterError.notRepresentable(filter: attributes.name, key: key, value: bad)
        }
        if case .vector(let v) = value, type == .rectangle, let bad = v.first(where: { !$0.isFinite }) {
            throw FilterError.notRepresentable(filter: attributes.name, key: key, value: bad)
        }
        switch (type, value) {
        case (.boolean, .boolean), (.image, .image), (.data, .vector), (.file, .lookupTable):
            return value
        case (.boolean, .number(let n)) where n == 0 || n == 1:
            return .boolean(n == 1)
        case (_, .number(let n)) where type.isNumeric:
            if type == .count || type == .integer, n != n.rounded() {
                throw FilterError.wrongType(filter: attributes.name, key: key, expected: type, got: value.description)
            }
            if let low = parameter.minimum, n < low {
                throw FilterError.outOfRange(filter: attributes.name, key: key, value: n,
                                             minimum: parameter.minimum, maximum: parameter.maximum)
            }
            if let high = parameter.maximum, n > high {
                throw FilterError.outOfRange(filter: attributes.name, key: key, value: n,
                                             minimum: parameter.minimum, maximum: parameter.maximum)
            }
            if let limit = parameter.limit, n > limit.maximum {
                throw FilterError.overLimit(filter: attributes.name, key: key, value: n, limit: limit)
            }
            return value
        case (.position, .vector(let v)) where v.count == 2, (.offset, .vector(let v)) where v.count == 2,
             (.rectangle, .vector(let v)) where v.count == 4, (.transform, .vector(let v)) where v.count == 6,
             (.position3, .vector(let v)) where v.count == 3:
            return value
        case (.vector, .vector(let v)):
            // As long as the default (4 for CIColorPolynomial's coefficients, 10 for CIColorCrossPolynomial's, 9/25/49 for the convolutions' weights).
            if case .vector(let fallback)? = parameter.defaultValue, fallback.count != v.count {
                throw FilterError.wrongType(filter: attributes.name, key: key, expected: type,
                                            got: "\(v.count) numbers (it takes \(fallback.count))")
            }
            return value
        case (.color, .vector(let v)) where v.count == 3 || v.count == 4,
             (.opaqueColor, .vector(let v)) where v.count == 3:
            return .color(red: v[0], green: v[1], blue: v[2], alpha: v.count == 4 ? v[3] : 1)
        case (.color, .color), (.opaqueColor, .color):
            return value
        case (.text, .text(let message)):
            // A message to encode must say something; free text whose default is empty may be empty too.
            if message.isEmpty, parameter.defaultValue != .text("") {
                throw FilterError.badText(filter: attributes.name, key: key, reason: "the text is empty")
            }
            if let limit = parameter.limit, Double(message.utf8.count) > limit.maximum {
                throw FilterError.badText(filter: attributes.name, key: key,
                                          reason: "the message is \(message.utf8.count) bytes (UTF-8), over Medley's limit of "
                                              + "\(FilterValue.format(limit.maximum)): \(limit.reason)")
            }
            return value
        case (.choice, .text(let word)):
            guard let choices = parameter.choices, choices.contains(word) else {
                throw FilterError.notAChoice(filter: attributes.name, key: key, value: word,
                                             choices: parameter.choices ?? [])
            }
            return value
        default:
            throw FilterError.wrongType(filter: attributes.name, key: key, expected: type, got: value.description)
        }
    }
}
