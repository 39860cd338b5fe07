import Foundation
import MedleyMedia

/// An image's EXIF, IPTC and XMP as properties (docs/metadata.md, "Image metadata"), read through
/// exiv2 (`ImageMetadata`, MedleyMedia's one metadata adapter):
///
/// - `exif.<Tag>` for the main IFDs (`exif.Make`, `exif.FNumber`, `exif.DateTimeOriginal`), other
///   EXIF groups as `exif.<Group>.<Tag>` (`exif.Thumbnail.Compression`, maker notes:
///   `exif.Nikon3.Quality`); `iptc.<Dataset>` (`iptc.Keywords`); `xmp.<prefix>.<Property>`
///   (`xmp.dc.subject`, `xmp.xmp.Rating`);
/// - values as `exiftool -n` gives them (``MetadataValues``); GPS coordinates signed by their Ref;
/// - several values (keywords, XMP bags) as one text joined by "; ", as audio tags' several values are;
/// - the short names people use: `rating`, `label`, `keywords`, `title`, `caption`, `creator`,
///   `copyright`, `dateTaken` (ISO 8601), `gps.latitude`, `gps.longitude`, `gps.altitude`, `lens`.
///
/// A sidecar (`photo.xmp` or `photo.jpg.xmp` beside the file, as darktable and Lightroom write
/// them) replaces the file's XMP, and its values win over EXIF and IPTC, as Lightroom reads them.
public enum MetadataProperties {
    /// The short names, their kinds and where each is read from, first found wins (XMP before EXIF
    /// and IPTC where photo tools write XMP; EXIF first for what the camera wrote, unless a sidecar
    /// says otherwise).
    public static let shortNames: [(name: String, kind: ItemProperties.Kind, keys: [String])] = [
        ("rating", .integer, ["Xmp.xmp.Rating", "Exif.Image.Rating"]),
        ("label", .text, ["Xmp.xmp.Label"]),
        ("keywords", .text, ["Xmp.dc.subject", "Iptc.Application2.Keywords"]),
        ("title", .text, ["Xmp.dc.title", "Iptc.Application2.ObjectName"]),
        ("caption", .text, ["Xmp.dc.description", "Iptc.Application2.Caption", "Exif.Image.ImageDescription"]),
        ("creator", .text, ["Exif.Image.Artist", "Xmp.dc.creator", "Iptc.Application2.Byline"]),
        ("copyright", .text, ["Exif.Image.Copyright", "Xmp.dc.rights", "Iptc.Application2.Copyright"]),
        ("dateTaken", .date, ["Exif.Photo.DateTimeOriginal", "Xmp.exif.DateTimeOriginal", "Xmp.photoshop.DateCreated",
                              "Iptc.Application2.DateCreated", "Exif.Image.DateTimeOriginal"]),
        ("gps.latitude", .number, ["Exif.GPSInfo.GPSLatitude", "Xmp.exif.GPSLatitude"]),
        ("gps.longitude", .number, ["Exif.GPSInfo.GPSLongitude", "Xmp.exif.GPSLongitude"]),
        ("gps.altitude", .number, ["Exif.GPSInfo.GPSAltitude", "Xmp.exif.GPSAltitude"]),
        ("lens", .text, ["Exif.Photo.LensModel", "Xmp.aux.Lens", "Xmp.exifEX.LensModel", "Exif.Image.LensInfo"]),
    ]

    /// EXIF fields that hold one number, compared as numbers in `where`.
    static let numericExif: Set<String> = [
        "GPSLatitude", "GPSLongitude", "GPSAltitude", "GPSSpeed", "GPSImgDirection", "GPSDestBearing",
        "GPSDestLatitude", "GPSDestLongitude", "GPSAltitudeRef",
        "FNumber", "ExposureTime", "ExposureBiasValue", "FocalLength", "FocalLengthIn35mmFilm", "ISOSpeedRatings",
        "XResolution", "YResolution", "ResolutionUnit", "Orientation", "ApertureValue", "ShutterSpeedValue",
        "BrightnessValue", "MaxApertureValue", "SubjectDistance", "PixelXDimension", "PixelYDimension",
        "ImageWidth", "ImageLength", "ExposureProgram", "MeteringMode", "LightSource", "Flash", "WhiteBalance",
        "DigitalZoomRatio", "ColorSpace", "ExposureMode", "SceneCaptureType", "Contrast", "Saturation",
        "Sharpness", "SensingMethod", "CustomRendered", "GainControl", "YCbCrPositioning", "SubjectDistanceRange",
        "FileSource", "SceneType", "Rating", "RatingPercent", "CompressedBitsPerPixel", "ExposureIndex",
        "SensitivityType", "RecommendedExposureIndex", "StandardOutputSensitivity", "ISOSpeed",
    ]

    /// IFD0's tags by number, for the cameras that put them in the EXIF IFD, where exiv2 names
    /// them by number ("Exif.Photo.0x010f"; an HTC One_M8 writes Make and Model there).
    static let ifd0Names: [String: String] = [
        "0x010e": "ImageDescription", "0x010f": "Make", "0x0110": "Model", "0x0112": "Orientation",
        "0x0131": "Software", "0x0132": "DateTime", "0x013b": "Artist", "0x8298": "Copyright",
    ]

    /// EXIF groups whose tags are `exif.<Tag>`: IFD0, the EXIF IFD, GPS and interoperability.
    static let mainGroups: Set<String> = ["Image", "Photo", "GPSInfo", "Iop"]
    /// Offsets to other IFDs: meaningless once read (exiftool does not list them either).
    static let pointers: Set<String> = ["ExifTag", "GPSTag", "InteroperabilityTag",
        // A TIFF's containers of the other families, read as those families (`iptc.*`, `xmp.*`) and the ICC profile.
        "IPTCNAA", "XMLPacket", "InterColorProfile", "ImageResources"]

    /// What reading an image's metadata gave: properties and warnings (a sidecar that is not XMP,
    /// exiv2's complaints about a damaged maker note).
    public struct Read {
        public var values: [(name: String, value: TemplateValue)] = []
        public var warnings: [String] = []
        /// The sidecar whose XMP was read, if any.
        public var sidecar: String?
    }

    /// The sidecars looked for beside `path`, in order: `photo.jpg.xmp` (darktable), `photo.xmp`
    /// (Lightroom), each also as `.XMP`.
    public static func sidecarCandidates(for path: String) -> [String] {
        let base = (path as NSString).deletingPathExtension
        return [path + ".xmp", path + ".XMP", base + ".xmp", base + ".XMP"].filter { $0 != path }
    }

    /// The sidecar beside `path` that exists, if any.
    public static func sidecar(for path: String) -> String? {
        sidecarCandidates(for: path).first { candidate in
            if case .success(let status) = FileSystem.status(of: candidate), status.kind == .file { return true }
            return false
        }
    }

    /// The most a sidecar may hold (a 100,000-keyword XMP is about 2.5 MB).
    static let sidecarLimit: Int64 = 64 << 20

    /// The metadata properties of the image read through `readPath` (the item's open file,
    /// `/proc/self/fd/N`), with the sidecar beside `path`, its name. A file exiv2 cannot read gives
    /// no metadata properties and one warning; the item goes on.
    public static func read(path: String, readPath: String? = nil) -> Read {
        var read = Read()
        var fileTags: [MetadataTag] = []
        do {
            let metadata = try ImageMetadata.open(path: readPath ?? path)
            fileTags = metadata.tags
            read.warnings += metadata.warnings.map { "metadata: \($0)" }
        } catch let error as MediaError where error.cause == .library(code: ImageMetadata.unknownImageType) {
            // A format exiv2 does not know (JPEG XL, SVG, PPM …): no metadata read, nothing to say
            // unless libvips found EXIF in it (ImageProperties says so then).
        } catch {
            read.warnings.append("metadata not read: \(error)")
        }
        var sidecarTags: [MetadataTag]?
        if let sidecar = sidecar(for: path) {
            let name = (sidecar as NSString).lastPathComponent
            do {
                let metadata = try ImageMetadata.open(bytes: try sidecarBytes(sidecar), origin: sidecar)
                sidecarTags = metadata.tags.filter { $0.family == .xmp }
                read.sidecar = sidecar
                read.warnings += metadata.warnings.map { "sidecar \(name): \($0)" }
            } catch {
                read.warnings.append("sidecar \(name) not read (the file's own XMP is used): \(error)")
            }
        }
        read.values = properties(file: fileTags, sidecar: sidecarTags)
        return read
    }

    /// A sidecar's bytes, opened without following a link (a sidecar that is a link is not read:
    /// it could lead outside the ingest root) and at most `sidecarLimit` of them.
    static func sidecarBytes(_ path: String) throws -> [UInt8] {
        let descriptor: Int32
        switch FileSystem.openForReadingWithoutLink(path) {
        case .success(let opened): descriptor = opened
        case .failure(let error): throw MediaError.system("open", errno: error.code, path: path)
        }
        defer { FileSystem.close(descriptor) }
        guard case .success(let status) = FileSystem.status(ofDescriptor: descriptor), status.kind == .file else {
            throw MediaError(.medley, "open", "not a regular file", cause: .unsupported, path: path)
        }
        guard status.size <= sidecarLimit else {
            throw MediaError(.medley, "read", "\(status.size) bytes, over the \(sidecarLimit >> 20) MB a sidecar may hold", cause: .unsupported, path: path)
        }
        switch FileSystem.read(descriptor, count: Int(status.size), at: 0) {
        case .success(let bytes): return bytes
        case .failure(let error): throw MediaError.system("read", errno: error.code, path: path)
        }
    }

    /// Properties from the file's tags and a sidecar's XMP (which replaces the file's).
    public static func properties(file: [MetadataTag], sidecar: [MetadataTag]?) -> [(name: String, value: TemplateValue)] {
        let tags = sidecar.map { side in file.filter { $0.family != .xmp } + side } ?? file
        var byKey: [String: MetadataValue] = [:]
        for tag in tags where byKey[tag.key] == nil { byKey[tag.key] = tag.value }
        var out: [(name: String, value: TemplateValue)] = []
        var seen = Set<String>()
        for tag in tags {
            guard let name = propertyName(tag), seen.insert(name).inserted, let value = byKey[tag.key] else { continue }
            out.append((name, templateValue(signed(tag, value, byKey))))
        }
        out += shortValues(byKey, sidecarWins: sidecar != nil)
        return out
    }

    /// `exif.FNumber`, `exif.Nikon3.Quality`, `iptc.Keywords`, `iptc.Envelope.CharacterSet`,
    /// `xmp.dc.subject`; nil for EXIF pointers.
    static func propertyName(_ tag: MetadataTag) -> String? {
        switch tag.family {
        case .exif:
            if pointers.contains(tag.name) { return nil }
            guard mainGroups.contains(tag.group) else { return "exif.\(tag.group).\(tag.name)" }
            return "exif." + (ifd0Names[tag.name.lowercased()] ?? tag.name)
        case .iptc:
            return tag.group == "Application2" ? "iptc." + tag.name : "iptc.\(tag.group).\(tag.name)"
        case .xmp:
            return "xmp.\(tag.group).\(tag.name)"
        }
    }

    /// GPS coordinates signed by their Ref (EXIF); XMP's "48,51.462N" read as signed degrees.
    static func signed(_ tag: MetadataTag, _ value: MetadataValue, _ byKey: [String: MetadataValue]) -> MetadataValue {
        switch (tag.family, value) {
        case (.exif, .number(let number)) where tag.group == "GPSInfo":
            let refKey = tag.name == "GPSAltitude" ? "Exif.GPSInfo.GPSAltitudeRef" : "Exif.GPSInfo.\(tag.name)Ref"
            guard ["GPSLatitude", "GPSLongitude", "GPSDestLatitude", "GPSDestLongitude", "GPSAltitude"].contains(tag.name) else { return value }
            return .number(MetadataValues.signedGPS(tag.name, value: number, ref: byKey[refKey]))
        case (.xmp, .text(let text)) where tag.group == "exif" && ["GPSLatitude", "GPSLongitude", "GPSDestLatitude", "GPSDestLongitude"].contains(tag.name):
            return xmpCoordinate(text).map(MetadataValue.number) ?? value
        case (.xmp, .text(let text)) where tag.group == "exif" && tag.name == "GPSAltitude":
            guard let number = MetadataValues.numbers(text)?.first else { return value }
            let below = byKey["Xmp.exif.GPSAltitudeRef"] == .text("1")
            return .number(MetadataValues.tidy(below ? -number : number))
        default:
            return value
        }
    }

    /// XMP's GPSCoordinate: "DDD,MM.mmk" or "DDD,MM,SSk", k one of N S E W.
    static func xmpCoordinate(_ text: String) -> Double? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let last = trimmed.last, "NSEWnsew".contains(last) else { return nil }
        let parts = trimmed.dropLast().split(separator: ",").map { Double($0) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { return nil }
        let numbers = parts.compactMap { $0 }
        var degrees = numbers[0]
        if numbers.count > 1 { degrees += numbers[1] / 60 }
        if numbers.count > 2 { degrees += numbers[2] / 3600 }
        return MetadataValues.tidy("SWsw".contains(last) ? -degrees : degrees)
    }

    /// A metadata value as a property: lists joined by "; ".
    static func templateValue(_ value: MetadataValue) -> TemplateValue {
        switch value {
        case .text(let text): return .text(text)
        case .integer(let integer): return .integer(integer)
        case .number(let number): return .number(number)
        case .list(let list): return .text(list.joined(separator: "; "))
        }
    }

    /// The short names' values, each from the first of its keys that has one.
    static func shortValues(_ byKey: [String: MetadataValue], sidecarWins: Bool) -> [(name: String, value: TemplateValue)] {
        var out: [(name: String, value: TemplateValue)] = []
        for (name, kind, keys) in shortNames {
            let ordered = sidecarWins ? keys.filter { $0.hasPrefix("Xmp.") } + keys.filter { !$0.hasPrefix("Xmp.") } : keys
            for key in ordered {
                guard let value = byKey[key], let property = shortValue(name, key: key, value, kind: kind, byKey) else { continue }
                out.append((name, property))
                break
            }
        }
        return out
    }

    static func shortValue(_ name: String, key: String, _ value: MetadataValue, kind: ItemProperties.Kind,
                           _ byKey: [String: MetadataValue]) -> TemplateValue? {
        let tag = MetadataTag(key: key, raw: .init(type: "", text: "", list: nil))
        switch kind {
        case .integer:
            switch value {
            case .integer(let integer): return .integer(integer)
            case .number(let number): return Int(exactly: number).map(TemplateValue.integer)
            case .text(let text):
                let trimmed = text.trimmingCharacters(in: .whitespaces)
                return Int(trimmed).map(TemplateValue.integer) ?? Double(trimmed).flatMap { Int(exactly: $0) }.map(TemplateValue.integer)
            case .list: return nil
            }
        case .number:
            switch signed(tag, value, byKey) {
            case .number(let number): return .number(number)
            case .integer(let integer): return .number(Double(integer))
            default: return nil
            }
        case .date:
            return isoDate(key: key, value, byKey).map(TemplateValue.text)
        default:
            let property = templateValue(value)
            return property.text.trimmingCharacters(in: .whitespaces).isEmpty ? nil : property
        }
    }

    /// A date as ISO 8601 ("2003-11-23T18:07:37", with the offset when the file gives one): EXIF's
    /// "2003:11:23 18:07:37" with OffsetTimeOriginal, XMP's as it is, IPTC's date and time joined.
    static func isoDate(key: String, _ value: MetadataValue, _ byKey: [String: MetadataValue]) -> String? {
        guard case .text(let raw) = value else { return nil }
        let text = raw.trimmingCharacters(in: .whitespaces)
        switch key {
        case "Exif.Photo.DateTimeOriginal", "Exif.Image.DateTimeOriginal":
            let scalars = Array(text)
            guard scalars.count >= 10, scalars[4] == ":", scalars[7] == ":" else { return nil }
            var iso = String(scalars[0..<4]) + "-" + String(scalars[5..<7]) + "-" + String(scalars[8..<10])
            if scalars.count >= 19 { iso += "T" + String(scalars[11..<19]) }
            guard TemplateDate(parsing: iso) != nil, !iso.hasPrefix("0000") else { return nil }
            if case .text(let offset)? = byKey["Exif.Photo.OffsetTimeOriginal"], scalars.count >= 19,
               TemplateDate(parsing: iso + offset.trimmingCharacters(in: .whitespaces)) != nil {
                iso += offset.trimmingCharacters(in: .whitespaces)
            }
            return iso
        case "Iptc.Application2.DateCreated":
            var iso = text.replacingOccurrences(of: ":", with: "-")
            if case .text(let time)? = byKey["Iptc.Application2.TimeCreated"], TemplateDate(parsing: iso + "T" + time) != nil {
                iso += "T" + time
            }
            return TemplateDate(parsing: iso) != nil ? iso : nil
        default:
            return TemplateDate(parsing: text) != nil ? text : nil
        }
    }
}
