import Foundation

/// EXIF fields as numbers, the way `exiftool -n` gives them, from libvips' field strings
/// ("14/5 (f/2.8, Rational, 1 components, 8 bytes)"): integers as integers, rationals as
/// decimals, several components separated by spaces, text as it is stored; GPS latitude,
/// longitude and altitude as signed decimal degrees (metres), with their Ref applied (S, W and
/// below sea level are negative). BYTE and UNDEFINED fields keep libexif's text.
enum ExifValues {
    /// EXIF fields that hold one number, compared as numbers in `where`.
    static let numericFields: Set<String> = [
        "GPSLatitude", "GPSLongitude", "GPSAltitude", "GPSSpeed", "GPSImgDirection", "GPSDestBearing",
        "FNumber", "ExposureTime", "ExposureBiasValue", "FocalLength", "FocalLengthIn35mmFilm", "ISOSpeedRatings",
        "XResolution", "YResolution", "ResolutionUnit", "Orientation", "ApertureValue", "ShutterSpeedValue",
        "BrightnessValue", "MaxApertureValue", "SubjectDistance", "PixelXDimension", "PixelYDimension",
        "ImageWidth", "ImageLength", "ExposureProgram", "MeteringMode", "LightSource", "Flash", "WhiteBalance",
        "DigitalZoomRatio", "ColorSpace", "ExposureMode", "SceneCaptureType", "Contrast", "Saturation",
        "Sharpness", "SensingMethod", "CustomRendered", "GainControl", "YCbCrPositioning", "SubjectDistanceRange",
    ]

    /// One libvips EXIF string: its stored value (before libexif's text in parentheses) and type.
    struct Field {
        var stored: String
        var display: String
        var type: String
    }

    static func parse(_ text: String) -> Field? {
        // "<stored> (<display>, <Type>, <N> components, <M> bytes)": read the fixed tail first.
        guard text.hasSuffix(" bytes)") else { return nil }
        var parts = text.dropLast(1).components(separatedBy: ", ")
        guard parts.count >= 4, parts[parts.count - 1].hasSuffix(" bytes"), parts[parts.count - 2].hasSuffix(" components") else { return nil }
        let type = parts[parts.count - 3]
        parts.removeLast(3)
        let head = parts.joined(separator: ", ")
        if type == "ASCII" {
            // The stored text and libexif's are the same: "<s> (<s>".
            let count = head.count
            guard count >= 2, (count - 2) % 2 == 0 else { return nil }
            let stored = String(head.prefix((count - 2) / 2))
            return Field(stored: stored, display: stored, type: type)
        }
        guard let open = head.range(of: " (") else { return nil }
        return Field(stored: String(head[..<open.lowerBound]), display: String(head[open.upperBound...]), type: type)
    }

    /// Rounded to 10 decimals, so that 48 + 51/60 + 27.72/3600 reads 48.8577, as exiftool prints it.
    static func tidy(_ number: Double) -> Double { (number * 1e10).rounded() / 1e10 }

    /// The numbers of an integer or rational field, or nil for other types.
    static func numbers(_ field: Field) -> [Double]? {
        let tokens = field.stored.split(separator: " ")
        switch field.type {
        case "Short", "Long", "SShort", "SLong":
            let values = tokens.compactMap { Double($0) }
            return values.count == tokens.count && !values.isEmpty ? values : nil
        case "Rational", "SRational":
            let values: [Double] = tokens.compactMap { token in
                let pair = token.split(separator: "/")
                guard pair.count == 2, let n = Double(pair[0]), let d = Double(pair[1]) else { return nil }
                return d == 0 ? nil : n / d
            }
            return values.count == tokens.count && !values.isEmpty ? values : nil
        default:
            return nil
        }
    }

    /// Every `exif.*` property of an image from its libvips fields (name, string), in order.
    static func properties(_ fields: [(name: String, text: String)]) -> [(name: String, value: TemplateValue)] {
        let parsed: [(name: String, field: Field?, text: String)] = fields.map { ($0.name, parse($0.text), $0.text) }
        func stored(_ name: String) -> String? {
            parsed.first { $0.name == name }?.field?.stored.trimmingCharacters(in: .whitespaces)
        }
        var out: [(name: String, value: TemplateValue)] = []
        for index in parsed.indices {
            let (name, field, text) = parsed[index]
            guard let field else {
                out.append(("exif." + name, .text(ImageProperties.exifValue(text))))
                continue
            }
            guard let numbers = numbers(field) else {
                // ASCII as stored; BYTE and UNDEFINED as libexif reads them.
                out.append(("exif." + name, .text(field.type == "ASCII" ? field.stored : field.display)))
                continue
            }
            var value: Double? = numbers.count == 1 ? numbers[0] : nil
            switch name {
            case "GPSLatitude", "GPSLongitude":
                guard numbers.count == 3 else { break }
                let degrees = numbers[0] + numbers[1] / 60 + numbers[2] / 3600
                let ref = stored(name + "Ref")?.uppercased()
                value = ref == "S" || ref == "W" ? -degrees : degrees
            case "GPSAltitude":
                // libexif gives GPSAltitudeRef (a BYTE) as text: "Sea level" (0, above) or
                // "Sea level reference" (1, below).
                let ref = parsed.first { $0.name == "GPSAltitudeRef" }?.field?.display.lowercased() ?? ""
                if let above = value, ref.contains("reference") || ref.hasPrefix("1") { value = -above }
            default:
                break
            }
            if let value {
                let tidy = Self.tidy(value)
                let whole = field.type.hasSuffix("Rational") || name.hasPrefix("GPS") ? nil : Int(exactly: tidy)
                out.append(("exif." + name, whole.map { .integer($0) } ?? .number(tidy)))
            } else {
                out.append(("exif." + name, .text(numbers.map { TemplatePlaceholder.plain(tidy($0)) }.joined(separator: " "))))
            }
        }
        return out
    }
}
